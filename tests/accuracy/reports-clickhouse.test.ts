import { accuracyReports } from './reports-suite.ts';

/**
 * Scripted visitors through the real gateway and API with FOOTFALL_ENGINE=clickhouse, pointed at
 * the ClickHouse test server (chdb): every number must be the model's, as on DuckDB.
 */
accuracyReports('clickhouse');
