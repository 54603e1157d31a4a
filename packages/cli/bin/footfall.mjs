#!/usr/bin/env node
// The `footfall` command. TypeScript runs through tsx's loader; children started by
// `footfall start` run this same file.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv.slice(2));
