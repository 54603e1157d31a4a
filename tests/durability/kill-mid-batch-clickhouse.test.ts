import { killMidBatch } from './kill-mid-batch-suite.ts';

/** The same kills with FOOTFALL_ENGINE=clickhouse: every report must equal DuckDB's uninterrupted run. */
killMidBatch('clickhouse');
