#!/usr/bin/env -S node --max-semi-space-size=32
// The `footfall` command: plain JavaScript built by `pnpm build` (scripts/build.ts; `pnpm install`
// runs it). Children started by `footfall start` run this same file, with plain node options.
// The options above are the gateway's (packages/cli/src/node-flags.ts, INGEST_NODE_FLAGS): run
// from the PATH, `footfall start` is the gateway process.
let built;
try {
  built = await import('../dist/footfall.mjs');
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist/footfall.mjs')) throw e;
  console.error('footfall: not built yet. From the checkout, run: npx --yes pnpm@10 install (or pnpm build)');
  process.exit(2);
}
await built.main(process.argv.slice(2));
