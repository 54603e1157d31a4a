import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../api-docs/documented-app.ts';
import { FOOTFALL_BIN, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * Backups through the real processes: `footfall backup now` against a running instance (over its
 * admin socket) and a stopped one, the off-site copy in a real S3-compatible server (s3rver),
 * Health, and `footfall backup restore` into an empty directory: the restored instance answers
 * every report as the original did.
 */
const TOKEN = 'backups-test-token-0123456789';
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const root = tempDir('ff-backups-');
let s3: S3rver;
let bucketUrl: string;
let original: Awaited<ReturnType<typeof startFootfall>>;
const dataDir = join(root, 'data');
let site: string;

/** `footfall <args>` with the instance's environment; resolves with exit code and output. */
function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [FOOTFALL_BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', FOOTFALL_GEO: 'off', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const env = () => ({
  FOOTFALL_DATA_DIR: dataDir,
  FOOTFALL_API_TOKEN: TOKEN,
  FOOTFALL_OPERATOR_TOKEN: `${TOKEN}-operator`,
  FOOTFALL_BACKUP_S3: bucketUrl,
  FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
});

const get = async <T>(url: string, path: string): Promise<T> => {
  const res = await fetch(`${url}/api/v1${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};
const today = () => new Date().toISOString().slice(0, 10);
const REPORTS = () => [
  `/report?from=${today()}&to=${today()}`,
  `/report?from=${today()}&to=${today()}&f=channel:Search`,
  `/report/breakdown?dim=pages&from=${today()}&to=${today()}`,
  `/events?limit=50`,
];

beforeAll(async () => {
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(root, 's3'),
    configureBuckets: [{ name: 'offsite', configs: [] }],
  });
  const { port } = (await s3.run()) as AddressInfo;
  bucketUrl = `http://S3RVER:S3RVER@127.0.0.1:${port}/offsite/footfall?region=us-east-1`;
  mkdirSync(dataDir);
  original = await startFootfall({ ...env(), FOOTFALL_SITES: 'shop.example' });
  site = (await get<{ sites: { id: string }[] }>(original.url, '/sites')).sites[0]!.id;
  const visits: [string, string][] = [
    ['https://shop.example/', 'https://www.google.com/'],
    ['https://shop.example/pricing', 'https://news.ycombinator.com/'],
    ['https://shop.example/docs', ''],
    ['https://shop.example/pricing', 'https://www.bing.com/'],
  ];
  for (const [u, r] of visits) {
    const res = await fetch(`${original.url}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': UA },
      body: JSON.stringify({ s: site, k: 'pv', u, r }),
    });
    expect(res.status).toBe(202);
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const r = await get<{ kpis: { pageviews: number } }>(original.url, `/sites/${site}${REPORTS()[0]}`);
    if (r.kpis.pageviews === visits.length) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 60_000);

afterAll(async () => {
  await original?.stop();
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('backups', () => {
  let file: string;
  let answers: unknown[];

  it('`footfall backup now` asks the running service, writes a sealed backup and copies it off-site', async () => {
    const run = await cli(['backup', 'now'], env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const written = /backup written: (\S+\.ffbackup)/.exec(run.stdout);
    expect(written, run.stdout).not.toBeNull();
    file = written![1]!;
    expect(file.startsWith(join(dataDir, 'backups'))).toBe(true);
    expect(run.stdout).toMatch(/copied off-site as footfall\/footfall-\d{8}T\d{6}Z-v[\w.+-]+\.ffbackup/);
    const health = await get<{
      backups: Record<string, { file?: string } | null> & { offsite: Record<string, unknown> };
    }>(original.url, '/health');
    expect(health.backups.last_success?.file).toBe(file.slice(join(dataDir, 'backups').length + 1));
    expect(health.backups).toMatchObject({ failing: false, offsite: { failing: false } });
    // in the documented shape, here and in the operator answer
    const contract = await loadContract();
    expect(contract.validate('#/components/schemas/Health', health)).toEqual([]);
    const operator = await fetch(`${original.url}/_footfall/health`, {
      headers: { authorization: `Bearer ${TOKEN}-operator` },
    });
    const answer = (await operator.json()) as { backups: unknown };
    expect(contract.validate('#/components/schemas/OperatorHealth', answer)).toEqual([]);
    expect(answer.backups).toEqual(health.backups);
    expect(original.logs().find((l) => l.msg === 'backup written')).toBeDefined();
    // the service was answering meanwhile, and its log names no key and no bucket address
    expect(original.output()).not.toContain('S3RVER:S3RVER');
    answers = await Promise.all(REPORTS().map((p) => get(original.url, `/sites/${site}${p}`)));
  }, 60_000);

  it('refuses to restore into a directory that holds data, or without the instance key', async () => {
    const busy = await cli(['backup', 'restore', file], { FOOTFALL_DATA_DIR: dataDir });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/is not empty/);
    const keyless = await cli(['backup', 'restore', file], { FOOTFALL_DATA_DIR: join(root, 'keyless') });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(/FOOTFALL_SECRET.*--key-file/);
    expect(existsSync(join(root, 'keyless', 'app.db'))).toBe(false);
    const wrong = join(root, 'wrong.key');
    writeFileSync(wrong, 'not-the-instance-key-0123456789\n');
    const other = await cli(['backup', 'restore', file, '--key-file', wrong], {
      FOOTFALL_DATA_DIR: join(root, 'other'),
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/sealed with another instance key/);
    expect(readdirSync(join(root, 'other'))).toEqual([]);
  });

  it('restores elsewhere with the key file, and the restored instance answers every report the same', async () => {
    await original.stop();
    const copy = join(root, 'moved.ffbackup');
    copyFileSync(file, copy);
    const restoredDir = join(root, 'restored');
    const restored = await cli(['backup', 'restore', copy, '--key-file', join(dataDir, 'secret.key')], {
      FOOTFALL_DATA_DIR: restoredDir,
    });
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toMatch(/restored the backup of/);
    const again = await startFootfall({ FOOTFALL_DATA_DIR: restoredDir, FOOTFALL_API_TOKEN: TOKEN });
    try {
      const now = await Promise.all(REPORTS().map((p) => get(again.url, `/sites/${site}${p}`)));
      expect(now).toEqual(answers);
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('`footfall backup now` with Footfall stopped copies the databases itself', async () => {
    const { FOOTFALL_BACKUP_S3: _offsite, ...local } = env();
    const run = await cli(['backup', 'now'], local);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/backup written: .*\.ffbackup/);
    const list = await cli(['backup', 'list'], env());
    expect(list.stdout.match(/^footfall-\S+\.ffbackup {2}/gm)).toHaveLength(2);
    expect(list.stdout).toMatch(/last off-site copy: /);
  }, 60_000);
});
