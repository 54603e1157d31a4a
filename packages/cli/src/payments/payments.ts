import type { Config } from '@footfall/config';
import { getSite, listSites } from '@footfall/control';
import {
  type ApiBases,
  type Connection,
  listConnections,
  reprocessLedger,
  SYNC_DEFAULT_DAYS,
  SYNC_MAX_DAYS,
  syncConnection,
} from '@footfall/payments';
import { openConfiguredControl } from '../control.ts';

export const PAYMENTS_HELP = `Usage: footfall payments <command>

  list                 every site's payment connections and their health: provider, live or
                       sandbox, last webhook, deliveries waiting for a signing secret, last
                       reconciliation and its error
  sync [site] [days]   reconcile now with the providers' APIs (every site, or one), reading the
                       last ${SYNC_DEFAULT_DAYS} days (or [days], at most ${SYNC_MAX_DAYS}): what the webhooks missed is added,
                       nothing is counted twice
  reprocess <site>     rebuild the site's ledger from its stored webhooks (safe while running)
`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const at = (ms: number | null) =>
  ms === null ? 'never' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** One connection's health, as `payments list` prints it under its site. */
function describe(x: Connection): string[] {
  const lines = [`  ${x.id}  ${x.provider}  ${x.environment}  ${x.setup}  ${x.name}`];
  lines.push(
    x.hasSecret
      ? `    last webhook: ${at(x.lastEventAt)}`
      : `    no signing secret yet: ${x.waiting} deliveries answered "retry later"${x.lastWaitingAt === null ? '' : ` (last ${at(x.lastWaitingAt)})`}`,
  );
  if (x.hasSecret && x.waiting > 0) lines.push(`    waiting: ${x.waiting}`);
  if (x.hasApiKey) {
    lines.push(
      `    last reconciliation: ${at(x.syncAttemptedAt)}${x.syncError === null ? (x.syncAttemptedAt === null ? '' : ' (ok)') : ` FAILED: ${x.syncError}`}`,
    );
  } else if (x.provider !== 'custom') {
    lines.push('    reconciliation: none (set up by hand, without an API key)');
  }
  return lines;
}

/**
 * `footfall payments ...`, run on the server against the control database. Returns the exit code
 * (0 done, 1 failed, 2 usage).
 */
export async function runPayments(args: string[], config: Config, io: Io): Promise<number> {
  const [command, site, daysText] = args;
  const days = daysText === undefined ? undefined : Number(daysText);
  const usage =
    !(command === 'list' && args.length === 1) &&
    !(command === 'reprocess' && site && args.length === 2) &&
    !(
      command === 'sync' &&
      args.length <= 3 &&
      (days === undefined || (Number.isInteger(days) && days >= 1 && days <= SYNC_MAX_DAYS))
    );
  if (usage) {
    const asked = command === 'help' || command === '--help' || command === undefined;
    (asked ? io.out : io.err)(PAYMENTS_HELP);
    return asked ? 0 : 2;
  }
  const { ctl } = openConfiguredControl(config);
  try {
    if (command === 'list') {
      for (const s of listSites(ctl)) {
        const connections = listConnections(ctl, s.id);
        io.out(`${s.id}  ${s.domain}${connections.length === 0 ? '  (no payment connection)' : ''}`);
        for (const x of connections) for (const line of describe(x)) io.out(line);
      }
      return 0;
    }
    if (site !== undefined && !getSite(ctl, site)) {
      io.err(`footfall payments: no site ${site}`);
      return 1;
    }
    if (command === 'reprocess') {
      const r = await reprocessLedger(ctl, site!);
      io.out(
        `rebuilt the ledger of ${site} from ${r.events} stored payloads: ${r.payments} payments, ${r.refunds} refunds, ${r.disputes} disputes`,
      );
      if (r.unreadable > 0) io.err(`${r.unreadable} stored payloads could not be read and were left out`);
      return 0;
    }
    const sites = site === undefined ? listSites(ctl).map((s) => s.id) : [site];
    const targets = sites.flatMap((id) => listConnections(ctl, id)).filter((x) => x.hasApiKey);
    if (targets.length === 0) {
      io.out('no connection to reconcile (only connections set up with an API key are read back)');
      return 0;
    }
    let failed = 0;
    for (const x of targets) {
      const r = await syncConnection(ctl, x.id, { days, apis: config.unsafe.paymentApis as ApiBases });
      if (r.error === null) io.out(`${x.id}  ${x.provider}  read ${r.read}, added ${r.added}`);
      else {
        failed++;
        io.err(`${x.id}  ${x.provider}  failed: ${r.error}`);
      }
    }
    return failed === 0 ? 0 : 1;
  } finally {
    await ctl.close();
  }
}
