import { accuracyReports } from './reports-suite.ts';

/** Scripted visitors through the real gateway and API, on the default engine (DuckDB). */
accuracyReports('duckdb');
