import { SHIELD_KINDS } from '@footfall/control';
import { BOT_DROP_KINDS } from '@footfall/schema';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { IngestDeps } from './deps.ts';

/**
 * This gateway's metrics (docs/metrics.md): its events accepted, dropped as bots, declined and
 * rejected by reason, robot hits, payment webhooks by status, whether it accepts, and its process
 * (memory, event-loop lag, CPU, heap). Every series carries `process="ingest"` and its WAL
 * `stream`. The query service gathers them over the status socket and serves them with its own at
 * `/metrics`. Counters mirror IngestStats at each collection, so counting stays one integer add.
 */
export function ingestMetrics(deps: Pick<IngestDeps, 'stats' | 'eventLog'>): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: 'ingest', stream: deps.eventLog.stream });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  // gauges named like counters (promtool refuses them); nodejs_active_handles & co. say the same
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ])
    registry.removeSingleMetric(name);
  const { stats } = deps;
  /** a counter whose value is kept elsewhere: set to it at each collection (`zeros`: its series show from the start) */
  const mirror = <L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    values: () => [Partial<Record<L, string>>, number][],
    zeros = false,
  ) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [labels, value] of values()) if (value > 0 || zeros) this.inc(labels, value);
      },
    });
  mirror('footfall_events_accepted_total', 'Events made durable and answered 202', [], () => [
    [{}, stats.accepted],
  ]);
  mirror(
    'footfall_events_dropped_bots_total',
    'Events dropped as robots, by how they were told',
    ['kind'],
    () => BOT_DROP_KINDS.map((kind) => [{ kind }, stats.bots[kind]]),
  );
  mirror(
    'footfall_events_shielded_total',
    "Events kept out by a site's shields, by the shield that matched",
    ['kind'],
    () => SHIELD_KINDS.map((kind) => [{ kind }, stats.shielded[kind]]),
    true,
  );
  mirror('footfall_events_declined_total', "Events not counted by the visitor's wish (DNT, GPC)", [], () => [
    [{}, stats.declined],
  ]);
  mirror(
    'footfall_events_rejected_total',
    'Requests to /api/e and /api/crawl refused, by error code',
    ['reason'],
    () => [...stats.rejectedBy].map(([reason, n]) => [{ reason }, n]),
  );
  mirror('footfall_crawl_hits_total', 'Robot page requests reported to /api/crawl and stored', [], () => [
    [{}, stats.crawlHits],
  ]);
  mirror(
    'footfall_webhooks_received_total',
    'Payment webhooks answered, by provider and status code',
    ['provider', 'status'],
    () =>
      [...stats.webhooks.values()].map((w) => [{ provider: w.provider, status: String(w.status) }, w.count]),
  );
  new Gauge({
    name: 'footfall_ingest_accepting',
    help: '1 while the gateway accepts events, 0 while it refuses them (disk full)',
    registers: [registry],
    collect() {
      this.set(deps.eventLog.state.state === 'refusing' ? 0 : 1);
    },
  });
  return registry;
}
