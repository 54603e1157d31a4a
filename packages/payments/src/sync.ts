import type { ControlDb } from '@footfall/control';
import { noteSync, syncTarget } from './connections.ts';
import { storeDelivery } from './inbox.ts';
import { loadProvider } from './providers/index.ts';
import { ProviderError, type ProviderId } from './providers/types.ts';

/** How far back a reconciliation reads when it is not told: a little more than the last run's gap. */
export const SYNC_DEFAULT_DAYS = 3;
/** The longest window `footfall payments sync` accepts. */
export const SYNC_MAX_DAYS = 400;
/** How often the query service reconciles each connection. */
export const SYNC_INTERVAL_MS = 6 * 60 * 60 * 1000;

/** Where each provider's API is reached: production unless a test points it elsewhere. */
export type ApiBases = Partial<Record<ProviderId, string>>;

export interface SyncResult {
  connection: string;
  /** objects read from the provider */
  read: number;
  /** of those, states the inbox did not hold yet (webhooks that were missed, or changed since) */
  added: number;
  /** null when it succeeded; the reason otherwise (also kept on the connection for Health) */
  error: string | null;
}

/**
 * Reconciles one connection with its provider's API: every object that moved money in the last
 * `days` days is stored in the inbox as a `sync` row (keyed by its state, so a second run adds
 * nothing) and applied to the ledger. A payment a webhook already brought has the same payment id
 * and is not counted twice (packages/payments/README.md, invariant 2). The outcome is kept on the
 * connection. Manual and custom connections have no API key: they are skipped with a reason.
 */
export async function syncConnection(
  ctl: ControlDb,
  id: string,
  options: { days?: number | undefined; apis?: ApiBases | undefined } = {},
): Promise<SyncResult> {
  const found = syncTarget(ctl, id);
  if (found === undefined) return { connection: id, read: 0, added: 0, error: 'no such payment connection' };
  const { connection, apiKey } = found;
  if (connection.provider === 'custom' || apiKey === null) {
    return {
      connection: id,
      read: 0,
      added: 0,
      error: 'set up by hand, without an API key: nothing to reconcile (webhooks only)',
    };
  }
  const days = Math.min(Math.max(options.days ?? SYNC_DEFAULT_DAYS, 1), SYNC_MAX_DAYS);
  const started = ctl.now();
  try {
    const adapter = await loadProvider(connection.provider);
    const records = await adapter.reconcile(
      { apiKey, base: options.apis?.[connection.provider], environment: connection.environment },
      started - days * 86_400_000,
    );
    let added = 0;
    for (const record of records) {
      const body = Buffer.from(JSON.stringify(record.payload));
      const stored = storeDelivery(
        ctl,
        { id, siteId: connection.siteId, environment: connection.environment },
        {
          eventId: `sync:${record.key}`,
          body,
          events: adapter.toLedger(record.payload, 'sync'),
          source: 'sync',
        },
      );
      if (!stored.duplicate) added++;
    }
    noteSync(ctl, id, started, null);
    return { connection: id, read: records.length, added, error: null };
  } catch (error) {
    const message =
      error instanceof ProviderError ? error.message : `reconciliation failed: ${(error as Error).message}`;
    noteSync(ctl, id, started, message);
    return { connection: id, read: 0, added: 0, error: message };
  }
}
