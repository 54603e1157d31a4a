export * from './ingest-event.ts';
export * from './limits.ts';
export * from './wal-record.ts';
