import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // A browser page on a busy 2-core CI machine can take seconds to answer; vitest's 1 s default
    // made polls of real pages flaky.
    expect: { poll: { timeout: 10_000 } },
  },
});
