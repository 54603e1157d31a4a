/**
 * Packages installed beside the bundle (packages/cli's own dependencies, and each app's) instead of
 * bundled by scripts/build.ts: those with native code, and the card drawing's (satori loads
 * WebAssembly, the font files are read from their package at run time, and piscina starts its
 * threads from a file of its own). Its own module, so a
 * test can read it without running the build.
 */
export const NATIVE_PACKAGES = [
  'better-sqlite3',
  '@duckdb/node-api',
  '@node-rs/crc32',
  '@resvg/resvg-js',
  'satori',
  '@fontsource/inter',
  // starts its worker threads from a file of its own package
  'piscina',
];
