import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '@footfall/config';
import { dataPaths, footfallVersion, prepareInstance } from '@footfall/instance';
import { askAdminSocket } from './admin-socket.ts';

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const BACKUP_HELP = `Usage: footfall backup <command>

  now                          write a backup of everything now (and copy it to FOOTFALL_BACKUP_S3
                               when set): through the running service, or by itself when Footfall
                               is stopped
  list                         the backups in data/backups and the last outcomes
  restore <file> [--key-file <secret.key>]
                               restore a backup into an empty FOOTFALL_DATA_DIR. The backup is
                               sealed with the instance key of the instance that made it: set
                               FOOTFALL_SECRET to it, put its secret.key in the empty directory,
                               or name the file with --key-file (it is then kept as data/secret.key)
`;

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

/** `footfall backup now|list|restore`. Returns the exit code (0 done, 1 failed, 2 usage). */
export async function runBackupCommand(args: string[], config: Config, io: Io): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'now' && rest.length === 0) return backupNow(config, io);
  if (command === 'list' && rest.length === 0) return list(config, io);
  if (command === 'restore' && rest[0] && !rest[0].startsWith('--')) {
    const keyAt = rest.indexOf('--key-file');
    const extra = rest.filter((a, i) => i !== 0 && a !== '--key-file' && i !== keyAt + 1);
    if ((keyAt < 0 || rest[keyAt + 1]) && extra.length === 0) {
      return restore(
        resolve(rest[0]),
        keyAt < 0 ? undefined : resolve(rest[keyAt + 1] as string),
        config,
        io,
      );
    }
  }
  const asked = command === undefined || command === 'help' || command === '--help';
  (asked ? io.out : io.err)(BACKUP_HELP);
  return asked ? 0 : 2;
}

async function backupNow(config: Config, io: Io): Promise<number> {
  const paths = dataPaths(config.dataDir);
  const asked = await askAdminSocket(join(paths.run, 'admin.sock'), '/backup');
  if (asked !== undefined) {
    if (asked.status !== 200) {
      io.err(`footfall backup: the backup failed: ${String(asked.body['message'])}`);
      return 1;
    }
    return report(asked.body as unknown as Written, io);
  }
  if (!existsSync(paths.controlDb)) {
    io.err(`footfall backup: there is no Footfall instance in ${config.dataDir} (no app.db)`);
    return 1;
  }
  // Footfall is stopped: this process copies the databases itself
  const { copyAnalyticsOffline, copyControl, runBackup } = await import('@footfall/backup');
  const { createCipher } = await import('@footfall/control');
  const instance = prepareInstance(config);
  try {
    const run = await runBackup({
      config,
      paths: instance.paths,
      cipher: createCipher(instance.secret),
      reason: 'manual',
      log: { info: () => undefined, error: () => undefined },
      sources: {
        control: (target) => copyControl(instance.paths.controlDb, target),
        analytics: (target, during) => copyAnalyticsOffline(instance.paths.analyticsDb, target, during),
      },
    });
    return report(run, io);
  } catch (error) {
    const { failureReason } = await import('@footfall/backup');
    const message = failureReason(error);
    io.err(
      /lock|Conflicting/i.test(message)
        ? 'footfall backup: the analytics database is open in another process (is Footfall running without its admin socket?)'
        : `footfall backup: the backup failed: ${message}`,
    );
    return 1;
  }
}

interface Written {
  file: string;
  bytes: number;
  offsite: { key: string; removed: string[] } | { error: string } | null;
}

function report(run: Written, io: Io): number {
  io.out(`backup written: ${run.file} (${mib(run.bytes)})`);
  if (run.offsite === null) return 0;
  if ('error' in run.offsite) {
    io.err(`the off-site copy failed: ${run.offsite.error}`);
    return 1;
  }
  io.out(`copied off-site as ${run.offsite.key}; ${run.offsite.removed.length} older copies removed`);
  return 0;
}

async function list(config: Config, io: Io): Promise<number> {
  const { localBackups, readState } = await import('@footfall/backup');
  const dir = dataPaths(config.dataDir).backups;
  const backups = localBackups(dir);
  if (backups.length === 0) io.out('no backups yet');
  for (const b of backups) io.out(`${b.name}  ${mib(b.bytes)}`);
  const state = readState(dir);
  const line = (what: string, o: { at: string; reason?: string; file?: string } | null) => {
    if (o !== null) io.out(`${what}: ${o.at}  ${o.reason ?? o.file ?? ''}`);
  };
  line('last backup', state.last_success);
  line('last failed backup', state.last_failure);
  line('last off-site copy', state.offsite.last_success);
  line('last failed off-site copy', state.offsite.last_failure);
  return 0;
}

async function restore(file: string, keyFile: string | undefined, config: Config, io: Io): Promise<number> {
  if (!existsSync(file)) {
    io.err(`footfall backup restore: ${file} does not exist`);
    return 1;
  }
  const paths = dataPaths(config.dataDir);
  const key =
    config.secret ??
    (keyFile ? readFileSync(keyFile, 'utf8').trim() : undefined) ??
    (existsSync(paths.secretKey) ? readFileSync(paths.secretKey, 'utf8').trim() : undefined);
  if (key === undefined) {
    io.err(
      'footfall backup restore: the backup is sealed with the instance key of the instance that made it. ' +
        'Set FOOTFALL_SECRET to that key, or pass --key-file <its data/secret.key>. Without it the backup cannot be opened.',
    );
    return 1;
  }
  const { restoreBackup, BackupOpenError, NotEmptyError } = await import('@footfall/backup');
  const { createCipher } = await import('@footfall/control');
  try {
    const manifest = await restoreBackup({
      file,
      dataDir: config.dataDir,
      cipher: createCipher(key),
      version: footfallVersion(),
    });
    if (keyFile && config.secret === undefined && !existsSync(paths.secretKey)) {
      writeFileSync(paths.secretKey, `${key}\n`, { mode: 0o600 });
    }
    io.out(
      `restored the backup of ${manifest.created_at} (Footfall ${manifest.footfall_version}) into ${config.dataDir}; ` +
        'start Footfall with the same instance key: the write-ahead log it holds is loaded on start',
    );
    return 0;
  } catch (error) {
    if (error instanceof BackupOpenError || error instanceof NotEmptyError) {
      io.err(`footfall backup restore: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
