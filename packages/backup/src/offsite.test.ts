import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Target } from '@footfall/config';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupName } from './create.ts';
import { copyOffsite, s3Client } from './offsite.ts';

/** A real S3-compatible server (s3rver) on 127.0.0.1 as the bucket; its account is S3RVER:S3RVER. */
let server: S3rver;
let endpoint: string;
const root = mkdtempSync(join(tmpdir(), 'ff-s3-'));
beforeAll(async () => {
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(root, 'bucket'),
    configureBuckets: [{ name: 'backups', configs: [] }],
  });
  const address = (await server.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const target = (over: Partial<S3Target> = {}): S3Target => ({
  endpoint,
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
  bucket: 'backups',
  prefix: 'footfall/prod',
  region: 'us-east-1',
  ...over,
});

const keys = async (t: S3Target) => {
  const client = s3Client(t);
  const page = await client.send(new ListObjectsV2Command({ Bucket: t.bucket }));
  client.destroy();
  return (page.Contents ?? []).map((o) => o.Key).sort();
};

describe('the off-site copy', () => {
  it('uploads a backup in parts, byte for byte, under the prefix', async () => {
    const now = Date.UTC(2026, 10, 25, 3, 0, 0);
    const file = join(root, backupName(now, '0.5.5'));
    const bytes = Buffer.alloc(19 * 1024 * 1024 + 7);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
    writeFileSync(file, bytes);
    const result = await copyOffsite(target(), file, 30, now);
    expect(result.key).toBe(`footfall/prod/${backupName(now, '0.5.5')}`);
    const client = s3Client(target());
    const got = await client.send(new GetObjectCommand({ Bucket: 'backups', Key: result.key }));
    const body = Buffer.from(
      await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    client.destroy();
    expect(body.equals(bytes)).toBe(true);
  });

  it('removes copies older than the kept days, never the newest, and nothing that is not a backup', async () => {
    const t = target({ prefix: 'keep-test' });
    const now = Date.UTC(2026, 10, 25, 3, 0, 0);
    const day = 86_400_000;
    const client = s3Client(t);
    const put = (key: string) =>
      client.send(new PutObjectCommand({ Bucket: 'backups', Key: key, Body: 'old' }));
    for (const age of [40, 31, 29]) await put(`keep-test/${backupName(now - age * day, '0.5.4')}`);
    await put('keep-test/notes.txt');
    await put(`keep-test/nested/${backupName(now - 90 * day, '0.5.4')}`);
    client.destroy();
    const file = join(root, backupName(now, '0.5.5'));
    writeFileSync(file, 'newest');
    const result = await copyOffsite(t, file, 30, now);
    expect(result.removed.sort()).toEqual(
      [40, 31].map((age) => `keep-test/${backupName(now - age * day, '0.5.4')}`).sort(),
    );
    expect(await keys(t)).toEqual(
      expect.arrayContaining([
        `keep-test/${backupName(now - 29 * day, '0.5.4')}`,
        `keep-test/${backupName(now, '0.5.5')}`,
        'keep-test/notes.txt',
        `keep-test/nested/${backupName(now - 90 * day, '0.5.4')}`,
      ]),
    );
    // even past its days, the newest copy stays: a second run a year later with the same file
    const later = await copyOffsite(t, file, 1, now + 365 * day);
    expect(later.removed).not.toContain(`keep-test/${backupName(now, '0.5.5')}`);
    expect(await keys(t)).toContain(`keep-test/${backupName(now, '0.5.5')}`);
  });

  it('fails with the service error named when the key is refused or the bucket is missing', async () => {
    const file = join(root, backupName(Date.UTC(2026, 10, 24), '0.5.5'));
    writeFileSync(file, 'x');
    await expect(copyOffsite(target({ accessKeyId: 'WRONG' }), file, 30, Date.now())).rejects.toMatchObject({
      name: 'InvalidAccessKeyId',
    });
    await expect(copyOffsite(target({ bucket: 'nobucket' }), file, 30, Date.now())).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
  });
});
