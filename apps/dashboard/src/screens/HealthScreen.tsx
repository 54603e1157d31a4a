import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';

const bytes = (n: number) => {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 10 || i === 0 ? 0 : 1)} ${units[i]}`;
};
const count = (n: number) => n.toLocaleString('en');

function uptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
}

function Row(props: { label: string; children: ComponentChildren; problem?: boolean }) {
  return (
    <div class={props.problem ? 'health-row problem' : 'health-row'}>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

const when = (iso: string) => new Date(iso).toLocaleString('en-GB');

/** The last backup and off-site copy, and their last failures while they are the latest outcome. */
function Backups({ b }: { b: Schema<'Health'>['backups'] }) {
  if (b === null) {
    return (
      <p class="muted">
        No backup yet: the first is written a few minutes after start, then one a day into{' '}
        <code>data/backups</code>. <code>footfall backup now</code> writes one at once.
      </p>
    );
  }
  const o = b.offsite;
  return (
    <dl>
      <Row label="Last backup">
        {b.last_success === null
          ? 'none yet'
          : `${when(b.last_success.at)}, ${bytes(b.last_success.bytes ?? 0)}`}
      </Row>
      {b.failing && b.last_failure && (
        <Row label="Last attempt" problem>
          {`${when(b.last_failure.at)}: failed, ${b.last_failure.reason ?? ''}`}
        </Row>
      )}
      <Row label="Off-site copy" problem={o?.failing === true}>
        {o === null
          ? 'not set up (FOOTFALL_BACKUP_S3)'
          : o.failing && o.last_failure
            ? `failed ${when(o.last_failure.at)}: ${o.last_failure.reason ?? ''}`
            : o.last_success === null
              ? 'none yet'
              : when(o.last_success.at)}
      </Row>
    </dl>
  );
}

function Problems({
  h,
}: {
  h: Pick<Schema<'Health'>, 'ingest' | 'writer' | 'disk' | 'backups' | 'key_matches' | 'engine'>;
}) {
  const list: string[] = [];
  if (!h.engine.ready)
    list.push(
      h.engine.waiting === null
        ? 'Reports are starting: the analytics database is being opened.'
        : `Reports are not available: ${h.engine.waiting}`,
    );
  if (!h.key_matches)
    list.push(
      'The instance key does not match the data: FOOTFALL_SECRET changed, or data/secret.key was replaced. Sealed secrets (two-step, payment and alert secrets) cannot be opened until the original key is back.',
    );
  for (const g of h.ingest) {
    if (!g.reachable) list.push(`The ingest gateway ${g.stream} does not answer.`);
    else if (g.state === 'refusing')
      list.push(
        `The ingest gateway ${g.stream} refuses new visits: ${g.reason ?? 'the disk is full'}. It retries every 30 seconds.`,
      );
  }
  for (const s of h.writer.stuck_streams)
    list.push(`Reports stopped reading the write-ahead log ${s.stream}: ${s.error}`);
  if (h.writer.failing)
    list.push(
      `Writing events into reports keeps failing since ${new Date(h.writer.failing.since).toLocaleString('en-GB')}: ${h.writer.failing.error}`,
    );
  if (h.writer.unreadable_records > 0)
    list.push(
      `${count(h.writer.unreadable_records)} stored records could not be read and were kept aside in data/quarantine.`,
    );
  if (h.backups?.failing)
    list.push(`The last backup failed: ${h.backups.last_failure?.reason ?? 'unknown reason'}.`);
  if (h.backups?.offsite?.failing)
    list.push(
      `The last off-site copy failed: ${h.backups.offsite.last_failure?.reason ?? 'unknown reason'}.`,
    );
  if (h.disk.runway_days !== null && h.disk.runway_days < 14)
    list.push(`The disk fills in about ${Math.floor(h.disk.runway_days)} days at the current rate.`);
  if (list.length === 0) return <p class="health-ok">Everything works.</p>;
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
        <h1>Health</h1>
        {h && (
          <span class={h.status === 'ok' ? 'badge ok' : 'badge bad'}>
            {h.status === 'ok' ? 'OK' : 'Needs attention'}
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
              <h2 id="h-service">Service</h2>
              <dl>
                <Row label="Version">{h.version}</Row>
                <Row label="Up for">{uptime(h.uptime_seconds)}</Row>
                <Row label="Memory (query process)">{bytes(h.memory.bytes)}</Row>
              </dl>
            </section>
            <section class="card" aria-labelledby="h-events">
              <h2 id="h-events">Events since start</h2>
              <dl>
                <Row label="Accepted">{count(h.events.accepted)}</Row>
                <Row label="Dropped as robots">{count(h.events.dropped_as_bots)}</Row>
                <Row label="Declined (Do Not Track, GPC)">{count(h.events.declined)}</Row>
                <Row label="Rejected as malformed">{count(h.events.rejected)}</Row>
                <Row label="Waiting to reach reports" problem={h.writer.lag_events > 10_000}>
                  {count(h.writer.lag_events)}
                </Row>
              </dl>
            </section>
            <section class="card" aria-labelledby="h-disk">
              <h2 id="h-disk">Disk</h2>
              <dl>
                <Row label="Data">{bytes(h.disk.data_bytes)}</Row>
                <Row label="Free on the volume">{bytes(h.disk.free_bytes)}</Row>
                <Row label="Stored per day (last 7 days)">{count(h.disk.events_per_day)} events</Row>
                <Row label="Lasts" problem={h.disk.runway_days !== null && h.disk.runway_days < 14}>
                  {h.disk.runway_days === null
                    ? 'no events stored lately'
                    : h.disk.runway_days > 3650
                      ? 'more than ten years at that rate'
                      : `about ${count(Math.floor(h.disk.runway_days))} days at that rate`}
                </Row>
              </dl>
            </section>
            <section class="card" aria-labelledby="h-ingest">
              <h2 id="h-ingest">Ingest</h2>
              <dl>
                {h.ingest.map((g) => (
                  <Row
                    key={g.stream}
                    label={`Gateway ${g.stream}`}
                    problem={!g.reachable || g.state === 'refusing'}
                  >
                    {!g.reachable
                      ? 'not answering'
                      : g.state === 'refusing'
                        ? `refusing: ${g.reason}`
                        : 'accepting'}
                  </Row>
                ))}
              </dl>
            </section>
            <section class="card" aria-labelledby="h-payments">
              <h2 id="h-payments">Payments</h2>
              {h.payments === null ? (
                <p class="muted">No site has a payment connection.</p>
              ) : (
                <dl>
                  <Row label="Connections">{count(h.payments.connections)}</Row>
                  <Row label="Last webhook">
                    {h.payments.last_webhook_at === null
                      ? 'none yet'
                      : new Date(h.payments.last_webhook_at).toLocaleString('en-GB')}
                  </Row>
                  <Row label="Waiting for a signing secret" problem={h.payments.waiting > 0}>
                    {h.payments.waiting === 0
                      ? 'none'
                      : `${count(h.payments.waiting)} deliveries answered "retry later"`}
                  </Row>
                  <Row
                    label="Last reconciliation"
                    problem={
                      h.payments.last_reconciliation !== null && h.payments.last_reconciliation.error !== null
                    }
                  >
                    {h.payments.last_reconciliation === null
                      ? 'none yet'
                      : `${new Date(h.payments.last_reconciliation.at).toLocaleString('en-GB')}${h.payments.last_reconciliation.error === null ? '' : ` (failed: ${h.payments.last_reconciliation.error})`}`}
                  </Row>
                  <Row label="Exchange rates" problem={h.payments.exchange_rates.error !== null}>
                    {h.payments.exchange_rates.newest_day === null
                      ? 'none downloaded yet'
                      : `up to ${h.payments.exchange_rates.newest_day}`}
                    {h.payments.exchange_rates.error &&
                      ` (last download failed: ${h.payments.exchange_rates.error})`}
                  </Row>
                  {h.payments.sources.map((x) => {
                    const r = x.reconciliation;
                    const problem = !x.has_signing_secret || (r !== null && r.error !== null);
                    return (
                      <Row
                        key={x.id ?? `${x.site_id} ${x.name} ${x.environment}`}
                        label={`${x.name} (${x.environment})`}
                        problem={problem}
                      >
                        {x.has_signing_secret
                          ? `last webhook ${x.last_webhook_at === null ? 'none yet' : new Date(x.last_webhook_at).toLocaleString('en-GB')}`
                          : `no signing secret yet${x.waiting > 0 ? `, ${x.waiting} waiting` : ''}`}
                        {r !== null &&
                          (r.error === null
                            ? `; reconciled ${r.attempted_at === null ? 'not yet' : new Date(r.attempted_at).toLocaleString('en-GB')}`
                            : `; reconciliation failed: ${r.error}`)}
                      </Row>
                    );
                  })}
                </dl>
              )}
            </section>
            <section class="card" aria-labelledby="h-backups">
              <h2 id="h-backups">Backups</h2>
              <Backups b={h.backups} />
            </section>
          </div>
        </div>
      )}
    </main>
  );
}
