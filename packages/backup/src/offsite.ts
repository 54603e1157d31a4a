import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { type _Object, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Target } from '@footfall/config';
import { BACKUP_FILE } from './create.ts';

/**
 * The off-site copy: each backup is uploaded to FOOTFALL_BACKUP_S3 with the AWS SDK (multipart in
 * 8 MiB parts, two at a time), then copies older than FOOTFALL_BACKUP_KEEP_DAYS are removed from
 * the bucket, never the newest. Only files named like Footfall's backups under the prefix are
 * looked at, dated by the time in their name. Buckets on amazonaws.com are addressed by virtual host; any other S3-compatible
 * service (MinIO, R2, B2, Garage...) by path.
 */
export interface OffsiteResult {
  key: string;
  removed: string[];
}

export function s3Client(target: S3Target): S3Client {
  return new S3Client({
    endpoint: target.endpoint,
    region: target.region,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    forcePathStyle: !/(^|\.)amazonaws\.com$/i.test(new URL(target.endpoint).hostname),
    maxAttempts: 4,
    // checksums only where S3 requires them: many S3-compatible services refuse the chunked
    // uploads with trailing checksums that the SDK sends by default
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const keyOf = (target: S3Target, name: string) =>
  target.prefix ? `${target.prefix.replace(/\/+$/, '')}/${name}` : name;

export async function copyOffsite(
  target: S3Target,
  file: string,
  keepDays: number,
  now: number,
  signal?: AbortSignal,
): Promise<OffsiteResult> {
  const client = s3Client(target);
  try {
    const key = keyOf(target, basename(file));
    const upload = new Upload({
      client,
      params: {
        Bucket: target.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentType: 'application/octet-stream',
      },
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    const abort = () => void upload.abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await upload.done();
    } finally {
      signal?.removeEventListener('abort', abort);
    }
    const removed = await removeExpired(client, target, keepDays, now, key);
    return { key, removed };
  } finally {
    client.destroy();
  }
}

/** Deletes Footfall backups under the prefix older than `keepDays`, never the newest nor `keep`. */
async function removeExpired(
  client: S3Client,
  target: S3Target,
  keepDays: number,
  now: number,
  keep: string,
): Promise<string[]> {
  const prefix = target.prefix ? `${target.prefix.replace(/\/+$/, '')}/` : '';
  const objects: _Object[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: target.bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      const name = (o.Key ?? '').slice(prefix.length);
      if (!name.includes('/') && BACKUP_FILE.test(name)) objects.push(o);
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const newest = objects
    .map((o) => o.Key ?? '')
    .sort()
    .at(-1);
  const cutoff = now - keepDays * 86_400_000;
  const expired = objects
    .filter((o) => o.Key !== newest && o.Key !== keep && madeAt(o, prefix, now) < cutoff)
    .map((o) => o.Key as string);
  for (let i = 0; i < expired.length; i += 1000) {
    const batch = expired.slice(i, i + 1000);
    const answer = await client.send(
      new DeleteObjectsCommand({
        Bucket: target.bucket,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    if (answer.Errors && answer.Errors.length > 0) {
      throw new Error(
        `could not remove ${answer.Errors.length} old copies: ${answer.Errors[0]?.Message ?? 'unknown error'}`,
      );
    }
  }
  return expired;
}

/** When a backup in the bucket was made: the UTC time in its name, else when it was stored. */
function madeAt(o: _Object, prefix: string, now: number): number {
  const m = /^footfall-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec((o.Key ?? '').slice(prefix.length));
  if (m) return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  return o.LastModified?.getTime() ?? now;
}
