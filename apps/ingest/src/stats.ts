import type { BotDropKind } from '@footfall/schema';

/** Counters since start, for Health: accepted, dropped as bots, rejected. In memory only. */
export class IngestStats {
  accepted = 0;
  crawlHits = 0;
  rejected = 0;
  /** DNT, GPC: not counted at all, by the visitor's wish */
  declined = 0;
  readonly bots: Record<BotDropKind, number> = { list: 0, empty_ua: 0, headless: 0 };

  toJSON() {
    return {
      accepted: this.accepted,
      crawl_hits: this.crawlHits,
      rejected: this.rejected,
      declined: this.declined,
      dropped_as_bots: this.bots.list + this.bots.empty_ua + this.bots.headless,
      bots: { ...this.bots },
    };
  }
}
