import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { dateFormat, formatNumber } from '../i18n/format.ts';
import { t } from '../i18n/health.ts';

const UNITS = ['sizeB', 'sizeKB', 'sizeMB', 'sizeGB', 'sizeTB'] as const;
const bytes = (n: number) => {
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return t(UNITS[i] ?? 'sizeB', { size: formatNumber(v, v >= 10 || i === 0 ? 0 : 1) });
};
const count = (n: number) => formatNumber(n);

function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? t('upDaysHours', { d, h }) : h > 0 ? t('upHoursMinutes', { h, m }) : t('upMinutes', { m });
}

function Row(props: { label: string; children: ComponentChildren; problem?: boolean }) {
  return (
    <div class={props.problem ? 'health-row problem' : 'health-row'}>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

/** a moment to the second: 28/11/2026, 10:42:05 in English */
const moment = dateFormat({ dateStyle: 'short', timeStyle: 'medium' });
const when = (at: string | number) => moment.format(new Date(at));

/** The last backup and off-site copy, and their last failures while they are the latest outcome. */
function Backups({ b }: { b: Schema<'Health'>['backups'] }) {
  if (b === null) {
    return (
      <p class="muted">
        {t.rich('noBackupYet', {
          folder: <code>{'data/backups'}</code>,
          command: <code>{'footfall backup now'}</code>,
        })}
      </p>
    );
  }
  const o = b.offsite;
  return (
    <dl>
      <Row label={t('lastBackup')}>
        {b.last_success === null
          ? t('lastBackupNone')
          : t('backupWhenSize', { when: when(b.last_success.at), size: bytes(b.last_success.bytes ?? 0) })}
      </Row>
      {b.failing && b.last_failure && (
        <Row label={t('lastAttempt')} problem>
          {t('attemptFailed', { when: when(b.last_failure.at), reason: b.last_failure.reason ?? '' })}
        </Row>
      )}
      <Row label={t('offsiteCopy')} problem={o?.failing === true}>
        {o === null
          ? t('offsiteNotSetUp')
          : o.failing && o.last_failure
            ? t('offsiteFailedAt', { when: when(o.last_failure.at), reason: o.last_failure.reason ?? '' })
            : o.last_success === null
              ? t('offsiteNone')
              : when(o.last_success.at)}
      </Row>
    </dl>
  );
}

/** The newest day of exchange rates held, and the last download's failure. */
function rates(x: Schema<'PaymentsHealth'>['exchange_rates']): string {
  if (x.newest_day === null) return x.error ? t('noRatesYetFailed', { error: x.error }) : t('noRatesYet');
  return x.error
    ? t('ratesUpToFailed', { day: x.newest_day, error: x.error })
    : t('ratesUpTo', { day: x.newest_day });
}

/** E-mail reports of the last 30 days, and the newest one not delivered with the mail server's answer. */
function EmailReports({ e }: { e: Schema<'Health'>['email_reports'] }) {
  if (e === null) return <p class="muted">{t('emailReportsNone')}</p>;
  const f = e.last_failure;
  return (
    <dl>
      <Row label={t('emailReportsSent')}>{count(e.sent)}</Row>
      <Row label={t('emailReportsRetrying')} problem={e.retrying > 0}>
        {count(e.retrying)}
      </Row>
      <Row label={t('emailReportsGivenUp')} problem={e.given_up > 0}>
        {count(e.given_up)}
      </Row>
      {f && (
        <Row label={t('emailReportsLastFailure')} problem={e.failing}>
          {t('emailReportFailure', {
            domain: f.site_id === 'all' ? t('allSitesReport') : f.domain,
            kind: t(f.kind === 'weekly' ? 'weeklyReport' : 'monthlyReport'),
            from: f.from,
            to: f.to,
            message: f.message,
          })}
        </Row>
      )}
    </dl>
  );
}

function Problems({
  h,
}: {
  h: Pick<
    Schema<'Health'>,
    'ingest' | 'writer' | 'disk' | 'backups' | 'key_matches' | 'engine' | 'email_reports'
  >;
}) {
  const list: string[] = [];
  if (!h.engine.ready)
    list.push(
      h.engine.waiting === null
        ? t('reportsStarting')
        : t('reportsUnavailable', { reason: h.engine.waiting }),
    );
  if (!h.key_matches) list.push(t('keyMismatch'));
  for (const g of h.ingest) {
    if (!g.reachable) list.push(t('gatewayNoAnswer', { stream: g.stream }));
    else if (g.state === 'refusing')
      list.push(
        g.reason === null
          ? t('gatewayRefusingDiskFull', { stream: g.stream })
          : t('gatewayRefusing', { stream: g.stream, reason: g.reason }),
      );
  }
  for (const s of h.writer.stuck_streams) list.push(t('walStuck', { stream: s.stream, error: s.error }));
  if (h.writer.failing)
    list.push(t('writerFailing', { since: when(h.writer.failing.since), error: h.writer.failing.error }));
  if (h.writer.unreadable_records > 0)
    list.push(t('unreadableRecords', { count: h.writer.unreadable_records }));
  if (h.backups?.failing)
    list.push(
      h.backups.last_failure?.reason === undefined
        ? t('backupFailedUnknown')
        : t('backupFailed', { reason: h.backups.last_failure.reason }),
    );
  if (h.backups?.offsite?.failing)
    list.push(
      h.backups.offsite.last_failure?.reason === undefined
        ? t('offsiteFailedUnknown')
        : t('offsiteFailed', { reason: h.backups.offsite.last_failure.reason }),
    );
  if (h.email_reports?.failing && h.email_reports.last_failure)
    list.push(t('emailReportsFailing', { message: h.email_reports.last_failure.message }));
  if (h.disk.runway_days !== null && h.disk.runway_days < 14)
    list.push(t('diskFills', { count: Math.floor(h.disk.runway_days) }));
  if (list.length === 0) return <p class="health-ok">{t('everythingWorks')}</p>;
  return (
    // the alert wraps the list: a list with the alert role is no longer a list to assistive technology
    <div role="alert">
      <ul class="health-problems">
        {list.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

/** How this Footfall is doing (spec: Health content), for everyone signed in; refreshed every 30 s. */
export function HealthScreen() {
  const health = useLoad((signal) => unwrap(api.GET('/api/v1/health', { signal })), []);
  useEffect(() => {
    const timer = setInterval(health.reload, 30_000);
    return () => clearInterval(timer);
  }, []);
  const h = health.data;
  return (
    <main class="page" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>{t('health')}</h1>
        {h && (
          <span class={h.status === 'ok' ? 'badge ok' : 'badge bad'}>
            {h.status === 'ok' ? t('statusOk') : t('needsAttention')}
          </span>
        )}
      </div>
      <ErrorNote error={health.error} />
      {!h && !health.error && <Spinner />}
      {h && (
        <div class="stack">
          <section class="card">
            <Problems h={h} />
          </section>
          <div class="health-grid">
            <section class="card" aria-labelledby="h-service">
              <h2 id="h-service">{t('service')}</h2>
              <dl>
                <Row label={t('version')}>{h.version}</Row>
                <Row label={t('upFor')}>{uptime(h.uptime_seconds)}</Row>
                <Row label={t('memory')}>{bytes(h.memory.bytes)}</Row>
              </dl>
            </section>
            <section class="card" aria-labelledby="h-events">
              <h2 id="h-events">{t('eventsSinceStart')}</h2>
              <dl>
                <Row label={t('accepted')}>{count(h.events.accepted)}</Row>
                <Row label={t('droppedAsRobots')}>{count(h.events.dropped_as_bots)}</Row>
                <Row label={t('droppedByShields')}>
                  {count(h.events.dropped_by_shields)}
                  {h.events.dropped_by_shields > 0 && (
                    <span class="parts">
                      {t('shieldsByKind', {
                        ips: count(h.events.shielded.ip),
                        countries: count(h.events.shielded.country),
                        pages: count(h.events.shielded.page),
                        hostnames: count(h.events.shielded.hostname),
                      })}
                    </span>
                  )}
                </Row>
                <Row label={t('declined')}>{count(h.events.declined)}</Row>
                <Row label={t('rejected')}>{count(h.events.rejected)}</Row>
                <Row label={t('waitingForReports')} problem={h.writer.lag_events > 10_000}>
                  {count(h.writer.lag_events)}
                </Row>
              </dl>
            </section>
            <section class="card" aria-labelledby="h-disk">
              <h2 id="h-disk">{t('disk')}</h2>
              <dl>
                <Row label={t('data')}>{bytes(h.disk.data_bytes)}</Row>
                <Row label={t('freeOnVolume')}>{bytes(h.disk.free_bytes)}</Row>
                <Row label={t('storedPerDay')}>{t('events', { count: h.disk.events_per_day })}</Row>
                <Row label={t('lasts')} problem={h.disk.runway_days !== null && h.disk.runway_days < 14}>
                  {h.disk.runway_days === null
                    ? t('noEventsLately')
                    : h.disk.runway_days > 3650
                      ? t('moreThanTenYears')
                      : t('aboutDays', { count: Math.floor(h.disk.runway_days) })}
                </Row>
              </dl>
            </section>
            <section class="card" aria-labelledby="h-ingest">
              <h2 id="h-ingest">{t('ingest')}</h2>
              <dl>
                {h.ingest.map((g) => (
                  <Row
                    key={g.stream}
                    label={t('gateway', { stream: g.stream })}
                    problem={!g.reachable || g.state === 'refusing'}
                  >
                    {!g.reachable
                      ? t('notAnswering')
                      : g.state === 'refusing'
                        ? t('refusing', { reason: g.reason ?? '' })
                        : t('accepting')}
                  </Row>
                ))}
              </dl>
            </section>
            <section class="card" aria-labelledby="h-payments">
              <h2 id="h-payments">{t('payments')}</h2>
              {h.payments === null ? (
                <p class="muted">{t('noPaymentConnection')}</p>
              ) : (
                <dl>
                  <Row label={t('connections')}>{count(h.payments.connections)}</Row>
                  <Row label={t('lastWebhook')}>
                    {h.payments.last_webhook_at === null
                      ? t('lastWebhookNone')
                      : when(h.payments.last_webhook_at)}
                  </Row>
                  <Row label={t('waitingForSecret')} problem={h.payments.waiting > 0}>
                    {h.payments.waiting === 0
                      ? t('none')
                      : t('deliveriesRetryLater', { count: h.payments.waiting })}
                  </Row>
                  <Row
                    label={t('lastReconciliation')}
                    problem={
                      h.payments.last_reconciliation !== null && h.payments.last_reconciliation.error !== null
                    }
                  >
                    {h.payments.last_reconciliation === null
                      ? t('reconciliationNone')
                      : h.payments.last_reconciliation.error === null
                        ? when(h.payments.last_reconciliation.at)
                        : t('failedAt', {
                            when: when(h.payments.last_reconciliation.at),
                            error: h.payments.last_reconciliation.error,
                          })}
                  </Row>
                  <Row label={t('exchangeRates')} problem={h.payments.exchange_rates.error !== null}>
                    {rates(h.payments.exchange_rates)}
                  </Row>
                  {h.payments.sources.map((x) => {
                    const r = x.reconciliation;
                    const problem = !x.has_signing_secret || (r !== null && r.error !== null);
                    const webhooks = x.has_signing_secret
                      ? x.last_webhook_at === null
                        ? t('sourceNoWebhookYet')
                        : t('sourceLastWebhook', { when: when(x.last_webhook_at) })
                      : x.waiting > 0
                        ? t('sourceNoSecretWaiting', { count: x.waiting })
                        : t('sourceNoSecret');
                    return (
                      <Row
                        key={x.id ?? `${x.site_id} ${x.name} ${x.environment}`}
                        label={t(x.environment === 'sandbox' ? 'sourceSandbox' : 'sourceLive', {
                          name: x.name,
                        })}
                        problem={problem}
                      >
                        {r === null
                          ? webhooks
                          : t('sourceState', {
                              webhooks,
                              reconciliation:
                                r.error !== null
                                  ? t('sourceReconciliationFailed', { error: r.error })
                                  : r.attempted_at === null
                                    ? t('sourceNotReconciled')
                                    : t('sourceReconciled', { when: when(r.attempted_at) }),
                            })}
                      </Row>
                    );
                  })}
                </dl>
              )}
            </section>
            <section class="card" aria-labelledby="h-email-reports">
              <h2 id="h-email-reports">{t('emailReports')}</h2>
              <EmailReports e={h.email_reports} />
            </section>
            <section class="card" aria-labelledby="h-backups">
              <h2 id="h-backups">{t('backups')}</h2>
              <Backups b={h.backups} />
            </section>
          </div>
        </div>
      )}
    </main>
  );
}
