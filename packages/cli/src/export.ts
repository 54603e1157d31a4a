import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '@footfall/config';
import { dataPaths } from '@footfall/instance';
import type { ExportManifest } from '@footfall/query';
import { askAdminSocket } from './admin-socket.ts';

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const EXPORT_HELP = `Usage: footfall export --site <site id> [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                       [--format parquet|ndjson] [--out <folder>]

  Writes a folder holding every stored event, visit and robot counter of the site (the visits
  that started from --from to --to, local days of the site, with their events; every day when
  left out): events, visits and robots as Parquet (the default) or newline-delimited JSON, and
  manifest.json saying what each file holds. Columns are listed in docs/export.md. --out is a
  new folder (default: footfall-<domain>-<today> here). \`footfall import footfall <folder>
  --site <id>\` reads it into another Footfall. Runs through the running service (as
  \`footfall backup now\` does), or by itself when Footfall is stopped.
`;

/** `footfall export ...`. Returns the exit code (0 written, 1 refused or failed, 2 usage). */
export async function runExport(args: string[], config: Config, io: Io): Promise<number> {
  let values: { site?: string; from?: string; to?: string; format?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        site: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.err(`footfall export: ${(error as Error).message}\n\n${EXPORT_HELP}`);
    return 2;
  }
  if (values.help) {
    io.out(EXPORT_HELP);
    return 0;
  }
  const format = values.format ?? 'parquet';
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const wrong =
    values.site === undefined
      ? '--site is required'
      : format !== 'parquet' && format !== 'ndjson'
        ? `--format must be parquet or ndjson, not "${format}"`
        : [values.from, values.to].find((d) => d !== undefined && !day.test(d)) !== undefined
          ? '--from and --to are dates YYYY-MM-DD'
          : undefined;
  if (wrong !== undefined) {
    io.err(`footfall export: ${wrong}\n\n${EXPORT_HELP}`);
    return 2;
  }
  const body = {
    site: values.site,
    format,
    ...(values.from && { from: values.from }),
    ...(values.to && { to: values.to }),
    out: resolve(values.out ?? `footfall-${values.site}-${new Date().toISOString().slice(0, 10)}`),
  };
  let manifest: ExportManifest;
  try {
    const asked = await askAdminSocket(join(dataPaths(config.dataDir).run, 'admin.sock'), '/export', body);
    if (asked !== undefined && asked.status !== 200) {
      io.err(`footfall export: ${String(asked.body['message'] ?? `the service answered ${asked.status}`)}`);
      return 1;
    }
    if (asked !== undefined) manifest = asked.body as unknown as ExportManifest;
    else {
      // Footfall is stopped: this process reads the analytics data itself
      const { openConfiguredControl } = await import('./control.ts');
      const { exportOffline } = await import('@footfall/query');
      const { ctl, instance } = openConfiguredControl(config);
      try {
        manifest = await exportOffline({ config, instance, control: ctl, body });
      } finally {
        await ctl.close();
      }
    }
  } catch (error) {
    io.err(`footfall export: ${(error as Error).message}`);
    return 1;
  }
  const f = manifest.files;
  const period =
    manifest.from === null && manifest.to === null
      ? 'every day'
      : `${manifest.from ?? 'the first day'} to ${manifest.to ?? 'the last'}`;
  io.out(`exported ${manifest.site.domain} (${period}) to ${body.out}`);
  io.out(`  ${f.events.name}: ${f.events.rows} events`);
  io.out(`  ${f.visits.name}: ${f.visits.rows} visits`);
  io.out(`  ${f.robots.name}: ${f.robots.rows} robot counters`);
  return 0;
}
