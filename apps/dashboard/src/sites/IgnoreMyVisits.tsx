import { CopyButton } from '../components/ui.tsx';

/**
 * The "don't count me" link for the owner's own browsers: a page of the site opened with
 * `?footfall_ignore=1` marks that browser, and its tracker sends nothing until `=0`
 * (packages/tracker/README.md, "Privacy and consent").
 */
export function IgnoreMyVisits(props: { domain: string }) {
  const mark = `https://${props.domain}/?footfall_ignore=1`;
  const unmark = `https://${props.domain}/?footfall_ignore=0`;
  return (
    <div class="stack">
      <p>
        Open this link once in each browser you use for your site: that browser then sends nothing to
        Footfall, on every page, until you open <a href={unmark}>the same address with =0</a>.
      </p>
      <code class="code-box">{mark}</code>
      <div class="row">
        <a class="button secondary" href={mark} target="_blank" rel="noopener noreferrer">
          Open it in this browser
        </a>
        <CopyButton text={mark} label="Copy the link" />
      </div>
    </div>
  );
}
