import type { DuckDBValue } from '@duckdb/node-api';
import type { Query } from './duckdb.ts';

/**
 * Collects the values of a statement being built and hands out their `$n` placeholders, so a
 * builder never pastes a value into SQL text.
 *
 * @example
 * const p = new Params();
 * const sql = `SELECT * FROM sessions WHERE site = ${p.add('site1')}`;
 * db.read(p.query(sql));
 */
export class Params {
  readonly values: DuckDBValue[] = [];

  /** Adds a value and returns its placeholder. */
  add(value: DuckDBValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  query(sql: string): Query {
    return { sql, params: this.values };
  }
}
