import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes used by the files under a directory (sockets and vanished files are skipped). */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await directoryBytes(p);
    else if (e.isFile())
      total += await stat(p).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

/** What the data directory holds: bytes in all and per entry at its top (`wal`, `backups`...). */
export interface DataUsage {
  total: number;
  top: Map<string, number>;
}

const usage = new Map<string, { at: number; walk: Promise<DataUsage> }>();
/** How long one walk of the data directory answers: a scrape of /metrics and Health share it. */
const USAGE_FRESH_MS = 10_000;

/** The data directory's usage, walked at most once every USAGE_FRESH_MS (callers meanwhile share it). */
export function dataUsage(root: string, now = Date.now()): Promise<DataUsage> {
  const held = usage.get(root);
  if (held && now - held.at < USAGE_FRESH_MS) return held.walk;
  const walk = (async () => {
    const top = new Map<string, number>();
    let entries: import('node:fs').Dirent[] = [];
    try {
      entries = await readdir(root, { withFileTypes: true });
    } catch {
      // a data directory that is not there holds nothing
    }
    for (const e of entries) {
      const p = join(root, e.name);
      if (e.isDirectory()) top.set(e.name, await directoryBytes(p));
      else if (e.isFile())
        top.set(
          e.name,
          await stat(p).then(
            (s) => s.size,
            () => 0,
          ),
        );
    }
    return { total: [...top.values()].reduce((a, b) => a + b, 0), top };
  })();
  usage.set(root, { at: now, walk });
  return walk;
}
