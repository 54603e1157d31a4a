/** Limits shared by the tracker, the ingest gateway and the tests, so all three agree. */
export const LIMITS = {
  /** Largest accepted `POST /api/e` or `POST /api/crawl` body, in bytes. */
  ingestBodyBytes: 8 * 1024,
  /** Events whose reported queue age is older than this are refused (the tracker keeps 24 h). */
  maxEventAgeMs: 25 * 60 * 60 * 1000,
  /** Longest accepted URL or referrer. */
  urlChars: 2048,
  /** Custom event name length. */
  eventNameChars: 120,
  /** Number of custom properties on one event. */
  propCount: 30,
  /** Length of a property key / a string property value. */
  propKeyChars: 64,
  propValueChars: 512,
  /**
   * More than this between one visitor's pageviews or custom events starts a new visit. The
   * gateway also uses it to mark events that may continue a cookieless visit across midnight.
   */
  visitGapMs: 30 * 60 * 1000,
  /** Event ids are random, url-safe, 8 to 64 characters. */
  eventIdMinChars: 8,
  eventIdMaxChars: 64,
} as const;
