// The payments pipeline: connections, the webhook inbox, the ledger and currency rates.

export {
  type Connection,
  type ConnectionMode,
  connectionsSummary,
  createConnection,
  deleteConnection,
  hasConnections,
  listConnections,
  PROVIDERS,
  type Provider,
  renameConnection,
  rotateSecret,
  type WebhookTarget,
  webhookTarget,
} from './connections.ts';
export {
  type ConversionSide,
  checkAmountMinor,
  convertMinorAtRates,
  currencyCode,
  minorDigits,
} from './currency.ts';
export { type CustomEvent, CustomEventSchema, parseAt, parseCustomEvent } from './custom-event.ts';
export { type Erasure, erasePayer } from './erase.ts';
export { receiveWebhook } from './inbox.ts';
export { applyToLedger, emailHashOf, type ReprocessResult, reprocessLedger } from './ledger.ts';
export {
  ECB_BASE_URL,
  ECB_FULL_HISTORY,
  ECB_RECENT_HISTORY,
  ecbFileFor,
  type RefreshRatesOptions,
  type RefreshResult,
  refreshRates,
} from './rates-refresh.ts';
export {
  formatRatesCsv,
  openRateStore,
  parseRatesCsv,
  RATES_FILE,
  type RateStore,
} from './rates-store.ts';
export { createRateTable, type RateTable } from './rates-table.ts';
export { type EcbRates, isDay, parseEcbXml } from './rates-xml.ts';
export { checkCustomSignature, type SignatureProblem, signCustom, TIMESTAMP_SKEW_MS } from './signature.ts';
