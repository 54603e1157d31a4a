import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { CardData } from './render.ts';

/**
 * Where the worker is: beside the built bundle (`dist/card-worker.mjs`, scripts/build.ts), or,
 * when the service runs from its TypeScript sources (tests), worker.ts through tsx.
 */
function workerFile(): { filename: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts'))
    return { filename: join(dirname(here), 'worker.ts'), execArgv: ['--import', 'tsx'] };
  const dir = basename(dirname(here)) === 'chunks' ? dirname(dirname(here)) : dirname(here);
  const built = join(dir, 'card-worker.mjs');
  if (!existsSync(built)) throw new Error(`card worker missing: ${built}`);
  return { filename: built, execArgv: [] };
}

/**
 * Cards are drawn in worker threads (at most two, started on the first card and stopped after a
 * minute without one), never on the event loop: a layout and a PNG take tens to hundreds of
 * milliseconds of CPU each. At most 20 wait; more answer 503 busy.
 */
export class CardPool {
  #pool: Piscina | undefined;

  draw(data: CardData): Promise<Buffer> {
    if (this.#pool === undefined) {
      this.#pool = new Piscina({
        ...workerFile(),
        minThreads: 0,
        maxThreads: 2,
        idleTimeout: 60_000,
        maxQueue: 20,
      });
      // a worker that fails to start fails its tasks (answered 500); it never takes the service down
      this.#pool.on('error', () => undefined);
    }
    return this.#pool.run(data).then((png: Uint8Array) => Buffer.from(png));
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
    this.#pool = undefined;
  }
}
