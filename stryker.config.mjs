// @ts-check
/**
 * Mutation testing of the alert core: `npm run test:mutation` (not part of `npm test` nor CI).
 * StrykerJS 9.5: it runs on Node.js 20 and 22 (10 wants 22). docs/development.md has how to run it,
 * the test set and the last figures.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  mutate: ['src/alerts/**/*.ts', '!src/alerts/**/*.test.ts'],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // The type checker would compile the project once per mutant: too dear on a shared 2-core box.
  checkers: [],
  // One worker: the machine is shared; a daemon test under a mutant must not fight for a core.
  concurrency: 1,
  timeoutMS: 10_000,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['html', 'json', 'clear-text', 'progress-append-only'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
};
export default config;
