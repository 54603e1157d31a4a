import type { ShieldKind } from '@footfall/control';
import type { BotDropKind } from '@footfall/schema';

/** Counters since start, for Health: accepted, dropped as bots, rejected. In memory only. */
export class IngestStats {
  accepted = 0;
  crawlHits = 0;
  rejected = 0;
  /** rejections by the error code answered (invalid_body, payload_too_large, rate_limited, …) */
  readonly rejectedBy = new Map<string, number>();
  /** payment webhooks answered, by provider and status code */
  readonly webhooks = new Map<string, { provider: string; status: number; count: number }>();
  /** DNT, GPC: not counted at all, by the visitor's wish */
  declined = 0;
  readonly bots: Record<BotDropKind, number> = { list: 0, empty_ua: 0, headless: 0 };
  /** kept out by a site's shields, by the shield that matched */
  readonly shielded: Record<ShieldKind, number> = { ip: 0, country: 0, page: 0, hostname: 0 };

  /** Counts a rejected request under the code it was answered with. */
  reject(code: string): void {
    this.rejected++;
    this.rejectedBy.set(code, (this.rejectedBy.get(code) ?? 0) + 1);
  }

  /** Counts a payment webhook answered with `status`. */
  webhook(provider: string, status: number): void {
    const key = `${provider} ${status}`;
    const found = this.webhooks.get(key);
    if (found) found.count++;
    else this.webhooks.set(key, { provider, status, count: 1 });
  }

  toJSON() {
    return {
      accepted: this.accepted,
      crawl_hits: this.crawlHits,
      rejected: this.rejected,
      declined: this.declined,
      dropped_as_bots: this.bots.list + this.bots.empty_ua + this.bots.headless,
      bots: { ...this.bots },
      dropped_by_shields:
        this.shielded.ip + this.shielded.country + this.shielded.page + this.shielded.hostname,
      shielded: { ...this.shielded },
    };
  }
}
