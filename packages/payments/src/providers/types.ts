import type { CustomEvent } from '../custom-event.ts';
import type { SignatureProblem } from '../signature.ts';

/** The payment providers Footfall connects to itself (the custom webhook is separate). */
export const PROVIDER_IDS = ['stripe', 'paddle', 'lemonsqueezy', 'polar', 'dodo'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export type Environment = 'live' | 'sandbox';

/** Why connecting with an API key failed: the three answers the spec's Errors table names. */
export type ConnectFailure =
  | { reason: 'key_rejected'; message: string }
  | { reason: 'missing_permission'; permission: string; message: string }
  | { reason: 'unreachable'; message: string };

/** Thrown by `connect`, `reconcile` and `disconnect`; the message is safe to show the owner. */
export class ProviderError extends Error {
  readonly failure: ConnectFailure;
  constructor(failure: ConnectFailure) {
    super(failure.message);
    this.name = 'ProviderError';
    this.failure = failure;
  }
}

/** Where a provider's API is reached. `base` undefined: the provider's own production address. */
export interface ApiTarget {
  /** the provider's API key, already cleaned of spaces and quotes */
  apiKey: string;
  /** a different base URL (tests: a local server); undefined in production */
  base: string | undefined;
  /** the connection's environment, once known (reconcile, disconnect) */
  environment?: Environment;
}

/** What an automatic connection keeps after `connect`. */
export interface Connected {
  environment: Environment;
  /** the endpoint's signing secret, as the provider gave it */
  signingSecret: string;
  /** the provider's id of the webhook endpoint it created, to remove it on disconnect */
  endpointId: string;
}

/** One object read back from the provider's API by reconciliation, stored in the inbox like a webhook. */
export interface SyncRecord {
  /**
   * The inbox key: the same state of the same object gives the same key (so a second sync stores
   * nothing), a changed state a new one. Prefixed `sync:` by the caller.
   */
  key: string;
  /** the object as the API answered it (or a small wrapper naming its kind); JSON */
  payload: unknown;
}

/** How a provider's headers are read: by lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

/**
 * One payment provider. Every function is pure apart from `connect`, `reconcile` and `disconnect`,
 * which call the provider's API at `target.base` (or its production address) and throw a
 * ProviderError the owner can act on.
 */
export interface ProviderAdapter {
  id: ProviderId;
  /** as the provider writes its name: "Stripe", "Lemon Squeezy" */
  name: string;
  /** the header that carries the signature, for messages and docs */
  signatureHeader: string;
  /** The environment an API key belongs to, when the key says so (null: ask the API). */
  environmentOfKey(apiKey: string): Environment | null;
  /**
   * Checks a delivery with the connection's signing secret, in constant time, with the provider's
   * own tolerance for the timestamp where its scheme has one. null when valid.
   */
  verify(input: {
    secret: string;
    header: HeaderReader;
    body: Uint8Array;
    nowMs: number;
  }): SignatureProblem | null;
  /** The inbox key of a verified delivery (a replay has the same key); null when the body is not this provider's event. */
  deliveryId(payload: unknown, header: HeaderReader): string | null;
  /**
   * The ledger events a stored payload stands for: a webhook's body (`source` 'webhook') or a record
   * reconciliation stored (`source` 'sync'). [] for an event that moves no money. Never throws for
   * an unknown or malformed shape: it answers [] (the row stays in the inbox, out of the ledger).
   * Payment, refund and dispute ids must be the same whichever source they come from, so
   * reconciliation never counts twice what a webhook already brought.
   */
  toLedger(payload: unknown, source: 'webhook' | 'sync'): CustomEvent[];
  /**
   * The payload with the payer's personal data removed (e-mail, name, address, phone, customer and
   * subscription ids, the footfall_vid metadata), for a data request. Amounts and ids of payments,
   * refunds and disputes stay.
   */
  redact(payload: unknown): unknown;
  /**
   * Checks the key, decides live or sandbox, creates a webhook endpoint at `webhookUrl` with the
   * adapter's fixed list of events (and pinned API version), and answers its signing secret.
   */
  connect(target: ApiTarget, webhookUrl: string): Promise<Connected>;
  /** Removes the endpoint `connect` created (best effort: the caller logs a failure). */
  disconnect(target: ApiTarget, endpointId: string): Promise<void>;
  /** Everything that moved money since `sinceMs`, as records for the inbox. */
  reconcile(target: ApiTarget, sinceMs: number): Promise<SyncRecord[]>;
}
