// The payments pipeline: connections, the webhook inbox, the ledger, reconciliation and currency rates.

export { connectProvider, disconnectProvider } from './connect.ts';
export {
  allConnections,
  type Connection,
  type ConnectionMode,
  cleanSecret,
  connectionsSummary,
  createConnection,
  deleteConnection,
  getConnection,
  hasConnections,
  listConnections,
  noteWaiting,
  PROVIDERS,
  type Provider,
  readSigningSecret,
  renameConnection,
  rotateSecret,
  type Setup,
  SOURCE_NAMES,
  setSigningSecret,
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
export { type Erasure, erasePayer, findPayer } from './erase.ts';
export { type Delivery, receiveWebhook, storeDelivery } from './inbox.ts';
export {
  type Adapters,
  adaptersFor,
  applyToLedger,
  emailHashOf,
  type ReprocessResult,
  reprocessLedger,
} from './ledger.ts';
export {
  cleanApiKey,
  emailIn,
  loadProvider,
  PROVIDER_IDS,
  PROVIDER_NAMES,
  type ProviderAdapter,
  ProviderError,
  type ProviderId,
} from './providers/index.ts';
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
export {
  type ApiBases,
  SYNC_DEFAULT_DAYS,
  SYNC_INTERVAL_MS,
  SYNC_MAX_DAYS,
  type SyncResult,
  syncConnection,
} from './sync.ts';
