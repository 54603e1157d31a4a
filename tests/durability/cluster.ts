import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb, type Site } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { type RunningFootfall, runFootfall, tempDir } from '../support/footfall.ts';

/** The two services of one instance, each run as its own `footfall ingest` / `footfall query`. */
export type Service = 'ingest' | 'query';

const READY: Record<Service, string> = {
  ingest: 'ingest gateway listening',
  query: 'query service listening',
};

/**
 * A port that was free a moment ago, for a gateway that keeps it across restarts. It is drawn
 * below Linux's ephemeral range (32768 and up): while the gateway is down, the senders' own
 * connections and other tests' port-0 servers take ports from that range and could hold this one.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000 after 50 tries');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * One Footfall instance on a temp data dir whose gateway and query service run as separate
 * processes, so a test can kill and restart each on its own. The site is created before either
 * starts, so its id and domain are known; the gateway listens on a fixed port so clients keep
 * their address across restarts.
 */
export class Cluster {
  readonly url: string;
  readonly token = 'durability-api-token-0123456789';
  readonly #root: string;
  readonly #env: Record<string, string>;
  readonly #running = new Map<Service, RunningFootfall>();
  /** output of every process started so far, for failure messages */
  readonly #history: { service: Service; run: RunningFootfall }[] = [];

  private constructor(
    readonly dataDir: string,
    readonly port: number,
    readonly site: Site,
    root: string,
  ) {
    this.#root = root;
    this.url = `http://127.0.0.1:${port}`;
    this.#env = {
      FOOTFALL_DATA_DIR: dataDir,
      FOOTFALL_ADDR: `127.0.0.1:${port}`,
      FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
      FOOTFALL_API_TOKEN: this.token,
      FOOTFALL_UPDATE_CHECK: 'off',
      FOOTFALL_LOG_LEVEL: 'info',
    };
  }

  /** Makes the data dir and the site; starts nothing. */
  static async create(domain = 'shop.example.com'): Promise<Cluster> {
    const root = tempDir('ff-durability-');
    const dataDir = join(root, 'data');
    const config = loadConfig({ FOOTFALL_DATA_DIR: dataDir });
    const instance = prepareInstance(config);
    const control = openControlDb({
      path: instance.paths.controlDb,
      secret: instance.secret,
      version: footfallVersion(),
    });
    try {
      const site = await createSite(control, { domain });
      return new Cluster(dataDir, await freePort(), site, root);
    } finally {
      await control.close();
    }
  }

  get analyticsDb(): string {
    return join(this.dataDir, 'analytics.duckdb');
  }

  get walRoot(): string {
    return join(this.dataDir, 'wal');
  }

  /** Starts a service and resolves once it serves. */
  async start(service: Service): Promise<void> {
    if (this.#running.has(service)) throw new Error(`${service} is already running`);
    const run = runFootfall([service], this.#env);
    this.#running.set(service, run);
    this.#history.push({ service, run });
    await run.waitForLog((l) => l.msg === READY[service], 60_000);
  }

  /** Sends a signal and resolves with how the process ended (bounded: SIGKILL after 30 s). */
  async signal(service: Service, signal: 'SIGKILL' | 'SIGTERM'): Promise<number | null> {
    const run = this.#running.get(service);
    if (run === undefined) throw new Error(`${service} is not running`);
    this.#running.delete(service);
    run.child.kill(signal);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
    const { code } = await run.exited;
    clearTimeout(timer);
    return code;
  }

  /** Freezes a service (SIGSTOP) as a stalled disk or an overloaded host would. */
  pause(service: Service): void {
    this.#child(service).kill('SIGSTOP');
  }

  resume(service: Service): void {
    this.#child(service).kill('SIGCONT');
  }

  #child(service: Service) {
    const run = this.#running.get(service);
    if (run === undefined) throw new Error(`${service} is not running`);
    return run.child;
  }

  /** GET on the API through the gateway with the instance's API token. */
  async api(path: string): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      headers: { authorization: `Bearer ${this.token}` },
      signal: AbortSignal.timeout(20_000),
    });
  }

  /** The last lines of every process's output, for a failure message. */
  outputTail(lines = 40): string {
    return this.#history
      .map(
        ({ service, run }, n) =>
          `--- ${service} #${n} ---\n${run.output().trimEnd().split('\n').slice(-lines).join('\n')}`,
      )
      .join('\n');
  }

  /** Every parsed log line of one service, across restarts. */
  logs(service: Service) {
    return this.#history.filter((h) => h.service === service).flatMap((h) => h.run.logs());
  }

  /** Kills whatever still runs and removes the data dir. */
  async destroy(): Promise<void> {
    for (const service of [...this.#running.keys()]) await this.signal(service, 'SIGKILL');
    rmSync(this.#root, { recursive: true, force: true });
  }
}
