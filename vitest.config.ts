import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/helpers/temp-root.ts'],
    // Integration tests open real sockets and spawn the built CLI; two workers fit a 2-core machine.
    maxWorkers: 2,
  },
});
