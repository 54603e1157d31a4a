import type { Config } from '@footfall/config';
import { getSite, listSites } from '@footfall/control';
import { listConnections, reprocessLedger } from '@footfall/payments';
import { openConfiguredControl } from '../control.ts';

export const PAYMENTS_HELP = `Usage: footfall payments <command>

  list                 every site's payment connections: provider, mode, last webhook
  reprocess <site>     rebuild the site's ledger from its stored webhooks (safe while running)
`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * `footfall payments ...\`, run on the server against the control database. Returns the exit code
 * (0 done, 1 failed, 2 usage).
 */
export async function runPayments(args: string[], config: Config, io: Io): Promise<number> {
  const [command, site] = args;
  if (command !== 'list' && !(command === 'reprocess' && site)) {
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
        for (const x of connections) {
          const last =
            x.lastEventAt === null
              ? 'no webhook yet'
              : `last webhook ${new Date(x.lastEventAt).toISOString()}`;
          io.out(
            `  ${x.id}  ${x.provider}  ${x.mode}  ${x.name}  ${x.hasSecret ? last : 'no signing secret yet'}`,
          );
        }
      }
      return 0;
    }
    if (!getSite(ctl, site!)) {
      io.err(`footfall payments: no site ${site}`);
      return 1;
    }
    const r = reprocessLedger(ctl, site!);
    io.out(
      `rebuilt the ledger of ${site} from ${r.events} webhooks: ${r.payments} payments, ${r.refunds} refunds, ${r.disputes} disputes`,
    );
    if (r.unreadable > 0) io.err(`${r.unreadable} stored webhooks could not be read and were left out`);
    return 0;
  } finally {
    await ctl.close();
  }
}
