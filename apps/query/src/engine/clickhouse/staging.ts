import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Row } from './rows.ts';

/** The loader's staging file and scratch tables (loader.ts). */

/** Every loader insert: synchronous, deduplicated (DESIGN.md, section 4). */
export const INSERT_SETTINGS = { async_insert: 0, insert_deduplicate: 1 } as const;

/** Inserts rows (JSONEachRow objects) into a scratch table. */
export async function insertRows(
  client: ClickHouseClient,
  table: string,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  await client.insert({
    table,
    values: rows as Row[],
    format: 'JSONEachRow',
    clickhouse_settings: INSERT_SETTINGS,
  });
}

/**
 * An event of the batch as staged: its site, id, the visitor it is stored under (its visit's
 * owner; itself when none) and the one it came from, then its row (a line: the JSON of these four,
 * a tab, the row's JSON).
 */
export interface StagedKey {
  site: string;
  id: string;
  owner: string;
  visitor: string;
}

/** The staged lines of a file, in order, each with its key and the row's text (not parsed). */
export async function* stagedLines(path: string): AsyncGenerator<{ key: StagedKey; row: string }> {
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line === '') continue;
    const tab = line.indexOf('\t');
    const [site, id, owner, visitor] = JSON.parse(line.slice(0, tab)) as [string, string, string, string];
    yield { key: { site, id, owner, visitor }, row: line.slice(tab + 1) };
  }
}
