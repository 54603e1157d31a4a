import { useRef, useState } from 'preact/hooks';
import { lazyScreen } from '../components/lazy.tsx';
import { t } from '../i18n/report.ts';
import type { Scope } from './scope.ts';

/** The list loads when the menu is first opened (Segments.tsx): nothing of it in the first view. */
const SegmentList = lazyScreen<{ scope: Scope; onChosen: () => void }>(
  () => import('./Segments.tsx'),
  'SegmentList',
);

/** The report's Segments menu: saved sets of filters, applied in one click (docs/dashboard.md). */
export function SegmentsMenu(props: { scope: Scope }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const [opened, setOpened] = useState(false);
  const close = () => ref.current?.removeAttribute('open');
  return (
    <details
      class="menu picker segments-menu"
      ref={ref}
      onToggle={() => {
        if (ref.current?.open) setOpened(true);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && ref.current?.open) {
          e.stopPropagation();
          e.preventDefault();
          close();
          ref.current.querySelector('summary')?.focus();
        }
      }}
    >
      <summary class="button secondary">
        {t('segments')} <span aria-hidden="true">▾</span>
      </summary>
      <div class="menu-list">{opened && <SegmentList scope={props.scope} onChosen={close} />}</div>
    </details>
  );
}
