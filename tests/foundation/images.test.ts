import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INGEST_NODE_FLAGS } from '@footfall/cli/node-flags';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The exec-form CMD of a Dockerfile, as the array it runs. */
function command(dockerfile: string): string[] {
  const line = readFileSync(join(root, dockerfile), 'utf8')
    .split('\n')
    .findLast((l) => l.startsWith('CMD '));
  return JSON.parse(line!.slice(4)) as string[];
}

// There is no container engine here: these read the images' commands instead of running them.
describe('the container images', () => {
  it('run the ingest gateway with the node options footfall start gives it', () => {
    expect(command('Dockerfile.ingest')).toEqual([
      'node',
      ...INGEST_NODE_FLAGS,
      'packages/cli/bin/footfall.mjs',
      'ingest',
    ]);
  });

  it('run the query service with plain node options, through the same command file', () => {
    expect(command('Dockerfile.query')).toEqual(['node', 'packages/cli/bin/footfall.mjs', 'query']);
    expect(existsSync(join(root, 'packages/cli/bin/footfall.mjs'))).toBe(true);
  });
});
