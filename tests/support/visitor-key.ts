import { createHash } from 'node:crypto';

/**
 * A visitor id's `visitor_key` as the engine stores it (DuckDB `md5_number_lower`: the last 8 of
 * the MD5's 16 bytes, little-endian), as a decimal string. Events store only this key since
 * analytics schema version 7, so tests compare sent visitor ids with it.
 */
export function visitorKey(visitor: string): string {
  return createHash('md5').update(visitor, 'utf8').digest().readBigUInt64LE(8).toString();
}
