import type { PlannedEvent } from './plan.ts';

const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
];

/** What happened to each event id: acknowledged at least once, and whether its last send failed. */
export class Ledger {
  readonly events = new Map<string, PlannedEvent>();
  readonly acked = new Set<string>();
  /** ids whose last send got no 202 (connection error, timeout, 5xx) */
  readonly unacked = new Set<string>();
  /** ids that failed at least once: each was resent later */
  readonly everFailed = new Set<string>();
  /** ids resent on purpose after their 202 */
  readonly resentAcked = new Set<string>();
  sends = 0;
  readonly failures = new Map<string, number>();

  constructor(events: readonly PlannedEvent[]) {
    for (const e of events) this.events.set(e.id, e);
  }

  record(e: PlannedEvent, outcome: 'acked' | string): void {
    this.sends++;
    if (outcome === 'acked') {
      this.acked.add(e.id);
      this.unacked.delete(e.id);
      return;
    }
    this.unacked.add(e.id);
    this.everFailed.add(e.id);
    this.failures.set(outcome, (this.failures.get(outcome) ?? 0) + 1);
  }

  unackedEvents(): PlannedEvent[] {
    return [...this.unacked].map((id) => this.events.get(id)!);
  }
}

/** `POST /api/e` of one planned event; resolves 'acked' on 202, else a short reason. */
export async function sendEvent(url: string, site: string, domain: string, e: PlannedEvent): Promise<string> {
  const body = {
    s: site,
    k: e.kind,
    u: `https://${domain}${e.path}`,
    r: '',
    i: e.id,
    v: e.visitor,
    ...(e.name === undefined ? {} : { n: e.name }),
    a: Math.max(0, Date.now() - e.at),
  };
  try {
    const res = await fetch(`${url}/api/e`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': UAS[e.visitor.length % UAS.length]!,
        'accept-language': 'en-GB,en;q=0.8',
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    if (res.status === 202) return 'acked';
    if (res.status >= 500) return `http ${res.status}`;
    // a 4xx is the test's own mistake, not an outage: fail loudly rather than resend forever
    throw new Error(`POST /api/e answered ${res.status} for ${e.id}`);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('POST /api/e answered')) throw error;
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? (error as Error).name;
  }
}

/**
 * Concurrent senders over one shared queue, as many browsers and servers would be. A failed send
 * is recorded as unacknowledged and the sender backs off briefly; the test decides when to resend.
 */
export class SenderPool {
  readonly #queue: PlannedEvent[] = [];
  readonly #workers: Promise<void>[] = [];
  #wakeIdle: (() => void)[] = [];
  #wakeWork: (() => void)[] = [];
  #inFlight = 0;
  #stopped = false;
  #error: Error | undefined;

  constructor(
    private readonly send: (e: PlannedEvent) => Promise<string>,
    private readonly ledger: Ledger,
    private readonly concurrency: number,
  ) {}

  start(): void {
    for (let n = 0; n < this.concurrency; n++) this.#workers.push(this.#work());
  }

  /** Queues events (a resend reuses the same id). */
  push(events: readonly PlannedEvent[]): void {
    this.#queue.push(...events);
    for (const wake of this.#wakeWork.splice(0)) wake();
  }

  /** Resolves once the ledger holds `acked` acknowledged ids; rejects after `timeoutMs`. */
  async untilAcked(acked: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.ledger.acked.size < acked) {
      this.#throwIfFailed();
      if (Date.now() > deadline)
        throw new Error(`only ${this.ledger.acked.size} of ${acked} events acknowledged in ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  /** Resolves once the queue is empty and no send is in flight; rejects after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length > 0 || this.#inFlight > 0) {
      this.#throwIfFailed();
      if (Date.now() > deadline)
        throw new Error(`senders still busy after ${timeoutMs} ms (${this.#queue.length} queued)`);
      await new Promise<void>((resolve) => {
        this.#wakeIdle.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    this.#throwIfFailed();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const wake of this.#wakeWork.splice(0)) wake();
    await Promise.all(this.#workers);
  }

  #throwIfFailed(): void {
    if (this.#error) throw this.#error;
  }

  async #work(): Promise<void> {
    while (!this.#stopped) {
      const e = this.#queue.shift();
      if (e === undefined) {
        for (const wake of this.#wakeIdle.splice(0)) wake();
        await new Promise<void>((resolve) => this.#wakeWork.push(resolve));
        continue;
      }
      this.#inFlight++;
      try {
        const outcome = await this.send(e);
        this.ledger.record(e, outcome);
        // while a service is down, back off instead of spinning through the queue
        if (outcome !== 'acked') await sleep(100 + Math.random() * 100);
      } catch (error) {
        this.#error ??= error as Error;
        this.#stopped = true;
      } finally {
        this.#inFlight--;
      }
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
