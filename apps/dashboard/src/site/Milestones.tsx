import { useState } from 'preact/hooks';
import { api, type Schema, unwrap, urlFor } from '../api/client.ts';
import { ConfirmAction, CopyButton, ErrorNote } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t as tc } from '../i18n/common.ts';
import { t } from '../i18n/report.ts';
import { isOwner } from '../session.ts';
import { theme } from '../theme.ts';

export type Milestone = Schema<'Milestone'>;

/** Money shows its amount on a public page only when asked. */
export const isMoney = (m: Milestone) => m.kind === 'revenue' || m.kind === 'first_sale';

/** The PNG card of a milestone, drawn by the server. */
export function milestoneCardUrl(
  site: string,
  m: Milestone,
  o: { theme?: 'light' | 'dark'; amount?: 'show' | 'hide' } = {},
): string {
  return urlFor('/api/v1/sites/{site}/milestones/{kind}/{step}/card', {
    path: { site, kind: m.kind, step: m.step },
    query: { theme: o.theme ?? 'light', amount: o.amount ?? (isMoney(m) ? 'show' : 'hide') },
  });
}

const milestonePath = (site: string, m: Milestone) => ({
  params: { path: { site, kind: m.kind, step: m.step } },
});

/**
 * A milestone's public page (owners): "Make a public link", with "Show the amount" for money;
 * once public, its address to copy, the amount choice and Revoke.
 */
export function PublicLink(props: { site: string; milestone: Milestone; onChanged: () => void }) {
  const { site, milestone: m } = props;
  const share = m.share ?? null;
  const [showAmount, setShowAmount] = useState(share?.show_amount ?? false);
  const make = useSubmit(async () => {
    await unwrap(
      api.POST('/api/v1/sites/{site}/milestones/{kind}/{step}/share', {
        ...milestonePath(site, m),
        body: { show_amount: showAmount },
      }),
    );
    props.onChanged();
  });
  const amount = useSubmit(async () => {
    const next = !showAmount;
    setShowAmount(next);
    await unwrap(
      api.POST('/api/v1/sites/{site}/milestones/{kind}/{step}/share', {
        ...milestonePath(site, m),
        body: { show_amount: next },
      }),
    ).catch((e: unknown) => {
      setShowAmount(!next);
      throw e;
    });
    props.onChanged();
  });
  const revoke = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/sites/{site}/milestones/{kind}/{step}/share', milestonePath(site, m)));
    props.onChanged();
  });
  const amountBox = isMoney(m) && (
    <label class="check">
      <input
        type="checkbox"
        checked={showAmount}
        disabled={amount.busy || make.busy}
        onChange={() => (share ? amount.submit() : setShowAmount(!showAmount))}
      />
      <span>{t('showAmount')}</span>
    </label>
  );
  return (
    <div class="stack milestone-link">
      {share?.url ? (
        <div class="row">
          <code class="share-url">{share.url}</code>
          <CopyButton text={share.url} label={t('copyPublicLink')} />
          {amountBox}
          <ConfirmAction
            ask={t('revokeAsk')}
            askLabel={t('revokeLinkOf', { headline: m.headline })}
            confirm={t('revokeConfirm')}
            busy={revoke.busy}
            onConfirm={() => revoke.submit()}
          />
        </div>
      ) : (
        <div class="row">
          {amountBox}
          <button class="button secondary" type="button" disabled={make.busy} onClick={() => make.submit()}>
            {t('makePublicLink')}
          </button>
        </div>
      )}
      <ErrorNote error={make.error ?? amount.error ?? revoke.error} />
    </div>
  );
}

/**
 * The newest milestone this person has not closed, as a moment above the report: its card, what
 * it means, a download and (owners) a public link. Closing it is for this person only.
 */
export function MilestoneMoment({ site }: { site: Schema<'Site'> }) {
  const list = useLoad(
    (signal) =>
      unwrap(api.GET('/api/v1/sites/{site}/milestones', { signal, params: { path: { site: site.id } } })),
    [site.id],
  );
  const [closed, setClosed] = useState<string[]>([]);
  const key = (m: Milestone) => `${m.kind}/${m.step}`;
  const m = list.data?.milestones.find((x) => x.seen === false && !closed.includes(key(x)));
  const close = useSubmit(async () => {
    if (!m) return;
    await unwrap(
      api.POST('/api/v1/sites/{site}/milestones/seen', {
        params: { path: { site: site.id } },
        body: { kind: m.kind, step: m.step },
      }),
    );
    setClosed([...closed, key(m)]);
  });
  if (!m) return null;
  const src = milestoneCardUrl(site.id, m, { theme: theme.value });
  return (
    <section class="moment card" aria-labelledby="moment-title">
      <img class="moment-card" src={src} width={600} height={315} alt={`${m.headline}: ${m.detail}`} />
      <div class="stack moment-words">
        <p class="moment-kicker">{t('milestoneReached')}</p>
        <h2 id="moment-title">{m.title}</h2>
        <p class="muted">{m.detail}.</p>
        <div class="row">
          <a class="button primary" href={src} download={`${site.domain}-${m.kind}-${m.step}.png`}>
            {t('downloadCard')}
          </a>
          <button
            class="button secondary"
            type="button"
            disabled={close.busy}
            onClick={() => close.submit()}
            aria-label={t('closeMilestone')}
          >
            {tc('close')}
          </button>
        </div>
        {isOwner.value && <PublicLink site={site.id} milestone={m} onChanged={list.reload} />}
        <ErrorNote error={close.error} />
      </div>
    </section>
  );
}
