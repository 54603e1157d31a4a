import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { footfallVersion } from '@footfall/instance';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

describe('VERSION', () => {
  it('is the one version of the servers, the tracker and every package', () => {
    const version = readFileSync(join(root, 'VERSION'), 'utf8').trim();
    // a release, or the next one's development builds (docs/operations.md, "Releasing")
    expect(version).toMatch(/^\d+\.\d+\.\d+(-dev)?$/);
    expect(footfallVersion()).toBe(version);
    const manifests = ['apps', 'packages'].flatMap((dir) =>
      readdirSync(join(root, dir)).map((name) => join(root, dir, name, 'package.json')),
    );
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    for (const file of manifests) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string };
      expect(pkg.version, pkg.name).toBe(version);
    }
  });
});
