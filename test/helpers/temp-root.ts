/**
 * Vitest's global setup: every temporary directory of a run (the tests', and those of the daemons,
 * Prometheus, Alertmanager and Chromium they start) is made under one root, removed when the run
 * ends, so a test that stops early or SIGKILLs a daemon leaves nothing behind in the system's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'avahealth-tests-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
