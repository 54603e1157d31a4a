import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Config } from '@footfall/config';
import { dataPaths } from '@footfall/instance';

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** a progress line: rewritten in place on a terminal */
  progress: (line: string) => void;
}

export const IMPORT_HELP = `Usage: footfall import plausible <export.zip | folder> --site <site id> [--through YYYY-MM-DD]
       footfall import umami <folder | zip> --site <site id> [--website <Umami website id>] [--through YYYY-MM-DD]
       footfall import ga4 --site <site id> --property <GA4 property id> --key-file <key.json> --from YYYY-MM-DD --to YYYY-MM-DD
       footfall import footfall <export folder> --site <site id> [--through YYYY-MM-DD]

  plausible  Plausible's CSV export (Site settings → Imports & Exports → Export, as downloaded:
             a zip, or the folder it was unpacked into), imported as daily aggregates apart from
             the site's own data; days an earlier import holds are skipped.
  umami      Umami's website_event.csv and session.csv (COPY ... TO ... CSV HEADER), imported as
             events at their own times, visits built by Footfall's rules; --website picks one of
             the export's websites (default: the site's recorded Umami website id, or the only one).
  ga4        a Google Analytics 4 property's daily totals and breakdowns through its Data API, read
             with a service account's JSON key (a Viewer of the property; the key is used for this
             import only, never stored), a month at a time: stopped by the API's daily quota, it
             keeps its finished months, and the same command run again goes on from there.
  footfall   a folder \`footfall export\` wrote (from this or another installation): its events
             become the site's own, at their own times, and their visits are built again by the
             same rules, so the reports are the same (docs/export.md).

  Days on or after the site's first day of its own data are skipped unless --through says how far
  to keep them (docs/imports.md). Runs through the running service (as \`footfall backup now\`
  does), or by itself when Footfall is stopped. A broken export is refused naming the file and
  line, and nothing of it is kept.
`;

/** The summary as the API answers it (routes/imports.ts summaryJson). */
interface Summary {
  import: { id: string; name: string; from: string | null; to: string | null };
  events: number;
  files: { name: string; rows: number }[];
  ignored_files: string[];
  rows_read: number;
  days: number;
  skipped: Record<string, number>;
}

type Line =
  | { progress: { file: string; rows_read: number } }
  | { done: Summary }
  | { error: { code: string; message: string } };

/** Asks the running query service over data/run/admin.sock; undefined when none answers there. */
function askService(
  socketPath: string,
  body: unknown,
  onLine: (line: Line) => void,
): Promise<number | undefined> {
  return new Promise((done, fail) => {
    const req = request(
      { socketPath, method: 'POST', path: '/import', headers: { 'content-type': 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            // a service older than this command answers 404: it cannot import
            onLine({ error: { code: String(res.statusCode), message: text } });
            done(res.statusCode);
          });
          return;
        }
        const lines = createInterface({ input: res });
        lines.on('line', (l) => {
          if (l.trim() !== '') onLine(JSON.parse(l) as Line);
        });
        lines.on('close', () => done(200));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? done(undefined) : fail(error),
    );
    req.end(JSON.stringify(body));
  });
}

function printSummary(s: Summary, io: Io): void {
  const i = s.import;
  if (s.events > 0) {
    io.out(`imported ${i.name}: ${s.events} events, ${i.from} to ${i.to} (import ${i.id})`);
    io.out('  Footfall loads them into its reports now (Health shows the backlog until it is done)');
  } else {
    io.out(
      s.days === 0
        ? `imported nothing from ${i.name}: no day was kept (import ${i.id})`
        : `imported ${i.name}: ${s.days} days, ${i.from} to ${i.to} (import ${i.id})`,
    );
  }
  io.out(`  rows read: ${s.rows_read}`);
  for (const f of s.files) io.out(`    ${f.name}: ${f.rows}`);
  for (const [reason, n] of Object.entries(s.skipped)) io.out(`  skipped ${n} rows: ${reason}`);
  if (s.ignored_files.length > 0)
    io.out(`  not part of a Plausible export, left unread: ${s.ignored_files.join(', ')}`);
}

/** `footfall import plausible ...`. Returns the exit code (0 imported, 1 refused or failed, 2 usage). */
export async function runImport(args: string[], config: Config, io: Io): Promise<number> {
  const [source, ...more] = args;
  // a GA4 import reads a property, not a file
  const [file, ...rest] = source === 'ga4' ? ['', ...more] : more;
  const option = (name: string) => {
    const at = rest.indexOf(name);
    return at < 0 ? undefined : rest[at + 1];
  };
  const site = option('--site');
  const through = option('--through');
  const website = option('--website');
  const ga4Flags = ['--property', '--key-file', '--from', '--to'];
  const flags = [
    '--site',
    '--through',
    ...(source === 'umami' ? ['--website'] : []),
    ...(source === 'ga4' ? ga4Flags : []),
  ];
  const known = rest.every((a, i) => flags.includes(a) || flags.includes(rest[i - 1] ?? ''));
  if (source === undefined || source === 'help' || source === '--help') {
    io.out(IMPORT_HELP);
    return 0;
  }
  if (source !== 'plausible' && source !== 'umami' && source !== 'ga4' && source !== 'footfall') {
    io.err(
      `footfall import: "${source}" cannot be imported; plausible, umami, ga4 and footfall can\n\n${IMPORT_HELP}`,
    );
    return 2;
  }
  const day = /^\d{4}-\d{2}-\d{2}$/;
  let ga4: { property: string; key: string; from: string; to: string } | undefined;
  if (source === 'ga4') {
    const [property, keyFile, from, to] = ga4Flags.map(option);
    if (
      !property ||
      !keyFile ||
      !from ||
      !to ||
      !day.test(from) ||
      !day.test(to) ||
      site === undefined ||
      !known
    ) {
      io.err(IMPORT_HELP);
      return 2;
    }
    try {
      ga4 = { property, key: readFileSync(resolve(keyFile), 'utf8'), from, to };
    } catch {
      io.err(`footfall import: ${keyFile}: cannot be read`);
      return 1;
    }
  }
  if (
    file === undefined ||
    site === undefined ||
    !known ||
    (through !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(through))
  ) {
    io.err(IMPORT_HELP);
    return 2;
  }
  const path = ga4 ? undefined : resolve(file);
  if (path !== undefined && !existsSync(path)) {
    io.err(`footfall import: ${file}: no such file or folder`);
    return 1;
  }
  const name = path === undefined ? `GA4 property ${ga4?.property}` : basename(path);
  const progress = (p: { file: string; rows_read: number }) =>
    io.progress(`reading ${p.file}: ${p.rows_read} rows`);
  let outcome: Summary | { code: string; message: string } | undefined;
  const status = await askService(
    join(dataPaths(config.dataDir).run, 'admin.sock'),
    {
      source,
      site,
      path,
      name,
      ...(through && { through }),
      ...(website && { website }),
      ...(ga4 && { ga4 }),
    },
    (line) => {
      if ('progress' in line) progress(line.progress);
      else outcome = 'done' in line ? line.done : line.error;
    },
  );
  if (status === undefined) {
    // Footfall is stopped: this process imports into app.db itself
    const { openConfiguredControl } = await import('./control.ts');
    const { importOffline, ImportFileError } = await import('@footfall/query');
    const { ctl, instance } = openConfiguredControl(config);
    try {
      outcome = await importOffline({
        config,
        instance,
        control: ctl,
        source,
        website,
        ga4,
        siteId: site,
        path: path ?? '',
        name,
        through,
        progress: (p) => progress({ file: p.file, rows_read: p.rowsRead }),
      }).then(
        (s) => ({
          import: { id: s.import.id, name: s.import.name, from: s.import.firstDay, to: s.import.lastDay },
          events: s.events,
          files: s.files,
          ignored_files: s.ignored,
          rows_read: s.rowsRead,
          days: s.days,
          skipped: s.skipped,
        }),
        (error: unknown) => ({
          code: error instanceof ImportFileError ? 'invalid_import' : 'failed',
          message: (error as Error).message,
        }),
      );
    } finally {
      await ctl.close();
    }
  }
  io.progress('');
  if (outcome === undefined || !('import' in outcome)) {
    io.err(`footfall import: ${outcome?.message ?? 'the service ended the import without an answer'}`);
    return 1;
  }
  printSummary(outcome, io);
  return 0;
}
