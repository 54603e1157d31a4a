import type { WalBotDrop, WalCrawl } from '@footfall/schema';
import { eventTime, type LoadEvent } from '../visits/model.ts';
import type { BatchRecord, BatchResult } from './loader.ts';

/**
 * What every engine's loader does first with a batch's records (loader.ts, clickhouse/loader.ts):
 * positions, repeated ids, crawler and bot counts, and the new events in the rules' order.
 */

/** Counts per key, for crawl and bot counters. */
export class Counter<T> {
  readonly counts = new Map<string, { row: T; n: number }>();
  add(key: string, row: T): void {
    const c = this.counts.get(key);
    if (c === undefined) this.counts.set(key, { row, n: 1 });
    else c.n++;
  }
}

/** A new event of a batch: its WAL payload, stored time and payload text (when the reader had it). */
export interface IncomingEvent {
  e: LoadEvent;
  ts: number;
  text: string | undefined;
}

/**
 * What every engine's batch does first with its records: skips those at or below their stream's
 * stored position, notes each stream's new position, drops an event id repeated in the batch,
 * counts crawler hits and bot drops, and hands back the new events in the rules' order.
 */
export class BatchIntake {
  readonly result: BatchResult = {
    events: 0,
    duplicates: 0,
    replayed: 0,
    crawls: 0,
    botDrops: 0,
    committed: false,
  };
  /** each stream's last sequence number in the batch */
  readonly next = new Map<string, bigint>();
  readonly #ids = new Set<string>();
  readonly crawls = new Counter<WalCrawl>();
  readonly bots = new Counter<WalBotDrop>();

  constructor(readonly positions: ReadonlyMap<string, bigint>) {}

  take(records: readonly BatchRecord[]): IncomingEvent[] {
    const events: IncomingEvent[] = [];
    for (const { stream, seq, record, text } of records) {
      const position = this.positions.get(stream);
      if (position !== undefined && seq <= position) {
        this.result.replayed++;
        continue;
      }
      const seen = this.next.get(stream);
      if (seen === undefined || seq > seen) this.next.set(stream, seq);
      if (record.t === 'event') {
        const key = `${record.site}\n${record.id}`;
        if (this.#ids.has(key)) {
          this.result.duplicates++;
          continue;
        }
        this.#ids.add(key);
        events.push({ e: record as LoadEvent, ts: eventTime(record), text });
      } else if (record.t === 'crawl') {
        this.crawls.add(
          [
            record.site,
            record.day,
            record.robot,
            record.robotKind,
            record.path,
            statusClass(record.status),
          ].join('\n'),
          record,
        );
        this.result.crawls++;
      } else {
        this.bots.add([record.site, record.day, record.kind].join('\n'), record);
        this.result.botDrops++;
      }
    }
    // the rules walk each visitor's events in time order: most slices are, this makes sure
    events.sort((a, b) => a.ts - b.ts || (a.e.id < b.e.id ? -1 : a.e.id > b.e.id ? 1 : 0));
    return events;
  }
}

/** Status 1xx..5xx becomes its class 1..5; an unknown or odd status is 0. */
export function statusClass(status: number | null | undefined): number {
  if (status === null || status === undefined) return 0;
  const cls = Math.floor(status / 100);
  return cls >= 1 && cls <= 5 ? cls : 0;
}
