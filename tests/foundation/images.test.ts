import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INGEST_NODE_FLAGS, QUERY_NODE_FLAGS } from '@footfall/cli/node-flags';
import { VARIABLES } from '@footfall/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NATIVE_PACKAGES } from '../../scripts/native-packages.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The Dockerfile's stages: name, base, and its instructions (continuation lines joined). */
function stages(): { name: string; from: string; lines: string[] }[] {
  const joined = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const out: { name: string; from: string; lines: string[] }[] = [];
  for (const line of joined) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) out.push({ from: from[1]!, name: from[2] ?? '', lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}
const stage = (name: string) => stages().find((s) => s.name === name)!;
/** A stage's instructions, its base stages' first. */
function lines(name: string): string[] {
  const s = stage(name);
  const base = stages().find((b) => b.name === s.from);
  return [...(base ? lines(base.name) : []), ...s.lines];
}
const exec = (line: string) => JSON.parse(line.replace(/^\w+\s+(--\S+\s+)*/, '')) as string[];

// There is no container engine here: these read the Dockerfile, compose.yaml and the other
// recipes instead of running them, and hold them to what the tests run.
describe('the container images', () => {
  it('copy only paths that exist in the repository into the build stage', () => {
    for (const line of stage('build').lines.filter((l) => /^COPY\s/.test(l) && !l.includes('--from'))) {
      const parts = line.split(/\s+/).slice(1, -1);
      for (const path of parts) expect(existsSync(join(root, path)), line).toBe(true);
    }
    // and every workspace project's manifest, so the frozen install sees the whole lockfile
    const workspace = parse(read('pnpm-workspace.yaml')) as { packages: string[] };
    const dirs = workspace.packages.flatMap((pattern) =>
      pattern.endsWith('/*')
        ? readdirSync(join(root, pattern.slice(0, -2))).map((d) => `${pattern.slice(0, -2)}/${d}`)
        : [pattern],
    );
    const copied = stage('build').lines.join('\n');
    for (const dir of dirs.filter((d) => existsSync(join(root, d, 'package.json')))) {
      expect(copied, dir).toContain(`COPY ${dir}/package.json ${dir}/`);
    }
  });

  it('copy what the build reads besides the sources: the API description the dashboard is typed from', () => {
    const build = read('scripts/build.ts');
    expect(build).toContain("'docs/openapi.yaml'");
    expect(stage('build').lines).toContain('COPY docs/openapi.yaml docs/');
    const copies = stage('build').lines.join('\n');
    expect(copies.indexOf('COPY docs/openapi.yaml docs/')).toBeLessThan(copies.indexOf('RUN pnpm build'));
  });

  it('give each image the built command and only its own native packages', () => {
    const runtime = stage('runtime').lines.join('\n');
    expect(runtime).toContain('COPY --from=build /src/packages/cli/bin packages/cli/bin');
    expect(runtime).toContain('COPY --from=build /src/packages/cli/dist packages/cli/dist');
    expect(existsSync(join(root, 'packages/cli/dist/footfall.mjs')), 'pnpm build output').toBe(true);
    expect(stage('ingest').lines).toContain('COPY --from=build /out/ingest/node_modules node_modules');
    expect(stage('query').lines).toContain('COPY --from=build /out/query/node_modules node_modules');
    const build = stage('build').lines.join('\n');
    expect(build).toContain('pnpm --filter @footfall/ingest deploy --prod --legacy /out/ingest');
    expect(build).toContain('pnpm --filter @footfall/query deploy --prod --legacy /out/query');
    // what a deploy installs is an app's dependencies: native packages only (the rest is bundled),
    // and DuckDB for the query service alone
    const deps = (app: string) =>
      Object.keys((JSON.parse(read(`apps/${app}/package.json`)) as { dependencies: object }).dependencies);
    for (const app of ['ingest', 'query']) for (const d of deps(app)) expect(NATIVE_PACKAGES).toContain(d);
    expect(deps('ingest')).not.toContain('@duckdb/node-api');
    expect(deps('query')).toContain('@duckdb/node-api');
  });

  it('run the commands the tests run, each process with its node options, as the unprivileged user', () => {
    const cmd = (name: string) => exec(lines(name).findLast((l) => l.startsWith('CMD '))!);
    expect(cmd('ingest')).toEqual([
      'node',
      ...INGEST_NODE_FLAGS,
      '/app/packages/cli/bin/footfall.mjs',
      'ingest',
    ]);
    expect(cmd('query')).toEqual([
      'node',
      ...QUERY_NODE_FLAGS,
      '/app/packages/cli/bin/footfall.mjs',
      'query',
    ]);
    // /app is the repository root: tests/support/footfall.ts runs the same file
    expect(existsSync(join(root, 'packages/cli/bin/footfall.mjs'))).toBe(true);
    for (const name of ['ingest', 'query']) {
      expect(lines(name).findLast((l) => l.startsWith('USER '))).toBe('USER node');
      const check = lines(name).find((l) => l.startsWith('HEALTHCHECK '))!;
      expect(exec(check.replace(/^HEALTHCHECK\s+(--\S+\s+)*CMD\s+/, 'CMD '))).toEqual([
        'footfall',
        'live',
        name,
      ]);
    }
    expect(stage('runtime').lines.join('\n')).toContain(
      'ln -s /app/packages/cli/bin/footfall.mjs /usr/local/bin/footfall',
    );
  });

  it('start from a base image pinned by digest', () => {
    expect(read('Dockerfile')).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim@sha256:[0-9a-f]{64}$/m);
    const pinned = '$' + '{NODE_IMAGE}';
    for (const s of stages()) expect([pinned, 'build', 'runtime']).toContain(s.from);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as {
    services: Record<string, Record<string, unknown>>;
    'x-footfall-env': Record<string, string>;
  };

  /** Footfall's own services; the monitoring profile's run upstream images */
  const footfall = () => Object.entries(compose.services).filter(([, s]) => s.profiles === undefined);

  it('builds each service from its own target, with an init, and a grace period that covers the drain', () => {
    expect(footfall().map(([name]) => name)).toEqual(['ingest', 'query']);
    for (const [name, service] of footfall()) {
      expect(service.build).toEqual({ context: '.', target: name });
      expect(stages().some((s) => s.name === name)).toBe(true);
      expect(service.init).toBe(true);
      expect(Number.parseInt(String(service.stop_grace_period), 10)).toBeGreaterThan(25);
    }
  });

  it('offers Prometheus and Grafana only under the monitoring profile, Grafana on loopback, provisioned', () => {
    for (const name of ['prometheus', 'grafana'])
      expect(compose.services[name]!.profiles).toEqual(['monitoring']);
    expect(compose.services.grafana!.ports).toEqual(['127.0.0.1:3000:3000']);
    expect(compose.services.prometheus!.ports).toBeUndefined();
    for (const volume of [
      ...(compose.services.grafana!.volumes as string[]),
      ...(compose.services.prometheus!.volumes as string[]),
    ]) {
      const source = volume.split(':')[0]!;
      if (source.startsWith('./'))
        expect(existsSync(new URL(`../../${source.slice(2)}`, import.meta.url)), source).toBe(true);
    }
    expect(read('infra/prometheus/prometheus.yml')).toContain('targets: ["ingest:8080"]');
  });

  it('hands Prometheus FOOTFALL_METRICS_TOKEN as the secret its scrape reads (/metrics is closed without it)', () => {
    const secrets = (compose as unknown as { secrets: Record<string, { environment?: string }> }).secrets;
    expect(compose.services.prometheus!.secrets).toEqual(['footfall_metrics_token']);
    expect(secrets.footfall_metrics_token).toEqual({ environment: 'FOOTFALL_METRICS_TOKEN' });
    const scrape = parse(read('infra/prometheus/prometheus.yml')) as {
      scrape_configs: { authorization?: { type: string; credentials_file: string } }[];
    };
    expect(scrape.scrape_configs[0]!.authorization).toEqual({
      type: 'Bearer',
      credentials_file: '/run/secrets/footfall_metrics_token',
    });
  });

  it('offers a ClickHouse server only under the clickhouse profile: pinned by digest, not published, its data kept', () => {
    const clickhouse = compose.services.clickhouse!;
    expect(clickhouse.profiles).toEqual(['clickhouse']);
    expect(String(clickhouse.image)).toMatch(/^clickhouse\/clickhouse-server:[\d.]+@sha256:[0-9a-f]{64}$/);
    expect(clickhouse.ports).toBeUndefined();
    expect(clickhouse.volumes).toEqual(['clickhouse-data:/var/lib/clickhouse']);
    expect(clickhouse.environment).toMatchObject({ CLICKHOUSE_USER: 'footfall', CLICKHOUSE_DB: 'footfall' });
  });

  it('publishes the gateway on loopback only', () => {
    expect(compose.services.ingest!.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(compose.services.query!.ports).toBeUndefined();
  });

  it('passes every setting on, and no benchmark switch', () => {
    const settings = VARIABLES.filter(
      (v) => !v.startsWith('FOOTFALL_UNSAFE_') && v !== 'FOOTFALL_DATA_DIR' && v !== 'FOOTFALL_ADDR',
    );
    expect(Object.keys(compose['x-footfall-env']).sort()).toEqual([...settings].sort());
  });
});

describe('the other ways to start it', () => {
  it('give the gateway its node options: pnpm start, the footfall command, the systemd unit', () => {
    const flags = INGEST_NODE_FLAGS.join(' ');
    const pkg = JSON.parse(read('package.json')) as {
      scripts: Record<string, string>;
      bin: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe(`node ${flags} packages/cli/bin/footfall.mjs start`);
    expect(pkg.bin.footfall).toBe('packages/cli/bin/footfall.mjs');
    expect(read('packages/cli/bin/footfall.mjs').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    expect(read('infra/systemd/footfall.service')).toContain(
      `ExecStart=/usr/bin/node ${flags} /opt/footfall/packages/cli/bin/footfall.mjs start`,
    );
  });

  it('keep the built command next to its source', () => {
    // the bin loads ../dist; `pnpm install` builds it (the root prepare script)
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.prepare).toContain('scripts/build.ts');
    expect(() => readlinkSync(join(root, 'packages/cli/dist'))).toThrow(); // a real directory
  });
});
