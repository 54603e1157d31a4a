/**
 * @footfall/wal: the write-ahead log between the ingest gateway and the query service.
 * One stream (directory of segment files) per ingest process; see README.md for the on-disk format
 * and the durability contract.
 */
export {
  WalClosedError,
  WalCorruptionError,
  WalError,
  WalLockedError,
  WalWriteError,
} from './errors.ts';
export { MAX_PAYLOAD_BYTES, type Payload } from './format.ts';
export { nodeFs, type WalFileHandle, type WalFs } from './fs.ts';
export { MARK_FILE } from './mark.ts';
export { type PruneOptions, pruneWal } from './prune.ts';
export {
  listWalStreams,
  openWalReader,
  type ReadOptions,
  WalReader,
  type WalReaderOptions,
  type WalRecord,
} from './reader.ts';
export { listSegments, type SegmentRef } from './segments.ts';
export {
  DEFAULT_MAX_BATCH_BYTES,
  DEFAULT_SEGMENT_BYTES,
  openWalWriter,
  WalWriter,
  type WalWriterOptions,
} from './writer.ts';
