import { chmod, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  type BackupReason,
  type BackupRun,
  type BackupState,
  copyControl,
  failureReason,
  readState,
  runBackup,
} from '@footfall/backup';
import type { Config } from '@footfall/config';
import type { ControlDb } from '@footfall/control';
import { type Logger, listen } from '@footfall/http';
import type { Instance } from '@footfall/instance';
import type { Engine } from './engine/index.ts';

/** A backup is due this long after the last one written. */
export const DAILY_MS = 24 * 3600 * 1000;
/** After a failed backup, the next try waits this long. */
const RETRY_MS = 3600 * 1000;
const LOOK_MS = 10 * 60 * 1000;
/** The first look after start: a start is never slowed by a backup. */
const FIRST_LOOK_MS = 2 * 60 * 1000;

export interface BackupsOptions {
  config: Config;
  instance: Instance;
  control: ControlDb;
  engine: Engine;
  logger: Logger;
  now: () => number;
  /** other commands the admin socket takes, by path (`POST /import`: imports/admin.ts) */
  adminRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
}

/**
 * The instance's backups, run by the query service (the only opener of the analytics database):
 * one a day (24 hours after the last one written; an hour after a failure), and on demand through
 * `footfall backup now`, which asks over `data/run/admin.sock`. Each is written to data/backups
 * (the newest LOCAL_KEEP kept), then copied to FOOTFALL_BACKUP_S3 when set. Outcomes are kept in
 * backups/state.json for Health; a failure is logged with its reason, never a key or a URL.
 */
export class Backups {
  readonly #o: BackupsOptions;
  #running: Promise<BackupRun> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #abort = new AbortController();
  #admin: Server | undefined;

  constructor(o: BackupsOptions) {
    this.#o = o;
  }

  get state(): BackupState {
    return readState(this.#o.instance.paths.backups);
  }

  /** Starts the daily schedule and the admin socket `footfall backup now` asks on. */
  async start(): Promise<void> {
    const tick = (delay: number) => {
      this.#timer = setTimeout(() => {
        const pass = this.due()
          ? this.run('daily').then(
              () => undefined,
              () => undefined,
            )
          : Promise.resolve();
        void pass.finally(() => {
          if (!this.#stopped) tick(LOOK_MS);
        });
      }, delay);
      this.#timer.unref();
    };
    tick(FIRST_LOOK_MS);
    await this.#serveAdmin();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort(new Error('the service is stopping'));
    await this.#running?.catch(() => undefined);
    if (this.#admin) await new Promise<void>((resolve) => this.#admin?.close(() => resolve()));
  }

  /** Writes a backup now; a call while one runs gets that one's answer. */
  run(reason: BackupReason): Promise<BackupRun> {
    if (this.#running) return this.#running;
    this.#running = this.#run(reason).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Whether the daily backup is due: a day after the last one written, an hour after a failure. */
  due(): boolean {
    const s = this.state;
    const now = this.#o.now();
    const last = s.last_success ? Date.parse(s.last_success.at) : 0;
    const failed = s.last_failure ? Date.parse(s.last_failure.at) : 0;
    return now - last >= DAILY_MS && now - failed >= RETRY_MS;
  }

  #run(reason: BackupReason): Promise<BackupRun> {
    const { config, instance, control, engine, logger } = this.#o;
    return runBackup({
      config,
      paths: instance.paths,
      cipher: control.cipher,
      reason,
      log: logger,
      now: this.#o.now,
      signal: this.#abort.signal,
      sources: {
        control: (target) => copyControl(control.raw, target),
        analytics: (target, during) => engine.snapshot(target, during),
      },
    });
  }

  /**
   * `data/run/admin.sock` (0600: the service's own user only): `POST /backup` writes a backup now
   * and answers with it; `adminRoutes` add the other commands (`footfall import`). The gateway
   * never forwards to it.
   */
  async #serveAdmin(): Promise<void> {
    const path = adminSocketPath(this.#o.instance);
    await unlink(path).catch(() => undefined);
    const server = createServer((req, res) => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const path = new URL(req.url ?? '/', 'http://admin').pathname;
      const other = req.method === 'POST' ? this.#o.adminRoutes?.[path] : undefined;
      if (other) return other(req, res);
      if (req.method !== 'POST' || path !== '/backup')
        return answer(404, { code: 'not_found', message: 'POST /backup, /import or /export only' });
      this.run('manual').then(
        (run) =>
          answer(200, { file: run.file, bytes: run.bytes, manifest: run.manifest, offsite: run.offsite }),
        (error: unknown) => answer(500, { code: 'backup_failed', message: failureReason(error) }),
      );
    });
    await listen(server, { path });
    await chmod(path, 0o600);
    this.#admin = server;
  }
}

export const adminSocketPath = (instance: Instance) => `${instance.paths.run}/admin.sock`;

/** The Health content's `backups`: null until a backup was tried. */
export function backupHealth(state: BackupState, offsiteSet: boolean) {
  if (state.last_success === null && state.last_failure === null) return null;
  const newer = (a: { at: string } | null, b: { at: string } | null) =>
    a !== null && (b === null || Date.parse(a.at) > Date.parse(b.at));
  return {
    last_success: state.last_success,
    last_failure: state.last_failure,
    failing: newer(state.last_failure, state.last_success),
    offsite: offsiteSet
      ? {
          last_success: state.offsite.last_success,
          last_failure: state.offsite.last_failure,
          failing: newer(state.offsite.last_failure, state.offsite.last_success),
        }
      : null,
  };
}
