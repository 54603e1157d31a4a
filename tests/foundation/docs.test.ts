import { readFileSync } from 'node:fs';
import { NOT_YET_USED, VARIABLES } from '@footfall/config';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  const rows = new Map(
    read('docs/configuration.md')
      .split('\n')
      .flatMap((line) => {
        const m = /^\| `(FOOTFALL_[A-Z0-9_]+)`/.exec(line);
        return m ? [[m[1]!, line] as const] : [];
      }),
  );

  it('documents every variable Footfall reads', () => {
    for (const name of VARIABLES) expect(rows.has(name), name).toBe(true);
  });

  it('marks a variable "not yet used" exactly while its feature is not built', () => {
    for (const [name, row] of rows) expect(row.includes('not yet used'), name).toBe(NOT_YET_USED.has(name));
  });
});
