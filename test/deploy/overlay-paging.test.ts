/**
 * Every shipped Kubernetes config has a paging path, so none starts with the loud "nothing pages"
 * warning that a config without one earns (alerts/paging.ts): the central and sharded overlays send
 * to Alertmanager; the sidecar, whose component ships the PrometheusRules, says the rules page
 * (`alerts.paging: prometheus`). A new user who starts from the sidecar's config, as the README
 * says, is not told at start that no one would be paged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagingCheck } from '../../src/alerts/paging.js';
import { parseConfig } from '../../src/config/load.js';
import { ROOT } from '../helpers/cli.js';

const OVERLAYS = join(ROOT, 'deploy/kubernetes/overlays');

describe('the shipped Kubernetes configs page someone', () => {
  for (const overlay of readdirSync(OVERLAYS)) {
    it(`overlays/${overlay}/avahealth.yaml`, () => {
      const file = join(OVERLAYS, overlay, 'avahealth.yaml');
      const config = parseConfig(readFileSync(file, 'utf8'), file, { DATA_API_KEY: 'k', HANDOVER_KEY: 'x'.repeat(32) });
      const paging = pagingCheck(config);
      expect(paging.problem, overlay).toBeUndefined();
    });
  }
});
