import { defineConfig } from 'vitest/config';

/**
 * The tests a mutation run (`npm run test:mutation`, stryker.config.mjs) runs against each mutant
 * of src/alerts/: the fast ones that run the alert core in this process. Left out: the tests that
 * spawn dist/cli.js (nothing they run is instrumented), the dependency and layering checks, and the
 * end-to-end, reliability, deploy and browser suites (minutes each, run by `npm test`).
 * docs/development.md says why and what it costs.
 */
export default defineConfig({
  test: {
    // With the generated files' check: each rule's Prometheus twin, the inhibit rules and the tuning
    // texts are checked-in output a mutant of a rule module changes (in process, milliseconds).
    include: ['test/unit/**/*.test.ts', 'src/**/*.test.ts', 'test/deploy/generated.test.ts'],
    exclude: [
      'node_modules/**',
      // spawn node or the built CLI, or check the whole tree: nothing of the mutants runs there
      'test/unit/layering.test.ts',
      'test/unit/module-loading.test.ts',
      'test/unit/dependencies.test.ts',
      'test/unit/trust-bench.test.ts',
      // import nothing of src/alerts/
      'test/unit/go-duration-and-time.test.ts',
      'test/unit/install-scripts.test.ts',
      'test/unit/labels.test.ts',
      'test/unit/parse-*.test.ts',
      'test/unit/periods.test.ts',
      'test/unit/reward-*.test.ts',
      'test/unit/sim-dip.test.ts',
      'test/unit/sim-uptime.test.ts',
      'test/unit/text-cut.test.ts',
      'test/unit/upgrade-schedule.test.ts',
      'test/unit/uptime-snapshot.test.ts',
      'test/unit/validator-economics.test.ts',
      'test/unit/visible.test.ts',
    ],
    // One module graph for every test file a mutant runs: loading src/ again per file was most of
    // a mutant's cost (docs/development.md).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ['test/helpers/temp-root.ts'],
  },
});
