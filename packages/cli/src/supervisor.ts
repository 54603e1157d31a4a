import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from '@footfall/http';

export interface ChildSpec {
  name: string;
  /** arguments after the node executable */
  args: string[];
}

export interface SupervisorOptions {
  children: ChildSpec[];
  logger: Logger;
  /** time children get to finish after SIGTERM before they are killed */
  drainMs: number;
  /** first restart delay; doubles per quick crash up to maxBackoffMs */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** a child that ran this long before crashing restarts after the first delay again */
  healthyAfterMs?: number;
}

/**
 * Runs child processes of this one (`footfall start` runs the query service so), restarts a crashed
 * one with exponential backoff, sends SIGTERM to all of them on stop and gives them the drain time
 * before killing what is left.
 */
export class Supervisor {
  readonly #opts: Required<SupervisorOptions>;
  readonly #running = new Map<string, ChildProcess>();
  readonly #delay = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopping = false;

  constructor(options: SupervisorOptions) {
    this.#opts = { backoffMs: 500, maxBackoffMs: 30_000, healthyAfterMs: 60_000, ...options };
  }

  start(): void {
    for (const spec of this.#opts.children) this.#spawn(spec);
  }

  /** the pid of a running child, for tests and status */
  pid(name: string): number | undefined {
    return this.#running.get(name)?.pid;
  }

  /** Forwards `signal`, waits up to the drain time, kills stragglers, resolves when all are gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.#stopping = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    const exits = [...this.#running.values()].map(
      (child) =>
        new Promise<void>((resolve) =>
          child.exitCode !== null ? resolve() : child.once('exit', () => resolve()),
        ),
    );
    for (const child of this.#running.values()) child.kill(signal);
    const killer = setTimeout(() => {
      for (const [name, child] of this.#running) {
        this.#opts.logger.warn({ child: name }, 'child did not finish within the drain time; killing it');
        child.kill('SIGKILL');
      }
    }, this.#opts.drainMs);
    await Promise.all(exits);
    clearTimeout(killer);
  }

  #spawn(spec: ChildSpec): void {
    const startedAt = Date.now();
    // the IPC channel lets the child notice this process's death, however it comes (parent.ts)
    const child = spawn(process.execPath, spec.args, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    this.#running.set(spec.name, child);
    this.#opts.logger.info({ child: spec.name, pid: child.pid }, 'child started');
    child.once('exit', (code, signal) => {
      this.#running.delete(spec.name);
      if (this.#stopping) {
        this.#opts.logger.info({ child: spec.name, code, signal }, 'child stopped');
        return;
      }
      const ranFor = Date.now() - startedAt;
      const previous = this.#delay.get(spec.name);
      const delay =
        previous === undefined || ranFor >= this.#opts.healthyAfterMs
          ? this.#opts.backoffMs
          : Math.min(previous * 2, this.#opts.maxBackoffMs);
      this.#delay.set(spec.name, delay);
      this.#opts.logger.error(
        { child: spec.name, code, signal, restartInMs: delay },
        'child exited; restarting',
      );
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (!this.#stopping) this.#spawn(spec);
      }, delay);
      this.#timers.add(timer);
    });
  }
}
