import { killMidBatch } from './kill-mid-batch-suite.ts';

killMidBatch('duckdb');
