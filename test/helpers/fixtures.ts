import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { CheckResult, HealthReport } from '../../src/model/observation.js';
import { parseHealthReport } from '../../src/parse/avalanchego.js';

/** The project's shared example payloads (../shared/fixtures), copied in so a clone anywhere tests the same. */
export const SHARED_FIXTURES = fileURLToPath(new URL('../fixtures/shared/', import.meta.url));
export const OWN_FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export function report(path: string): HealthReport {
  const parsed = parseHealthReport(readJson(path));
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error}`);
  return parsed.value;
}

export function check(r: HealthReport, name: string): CheckResult {
  const found = r.checks.find((c) => c.name === name);
  expect(found, `check ${name}`).toBeDefined();
  return found!;
}

/** Epoch seconds of a UTC wall time, plus a fraction. */
export function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, fraction = 0): number {
  return Date.UTC(y, mo - 1, d, h, mi, s) / 1000 + fraction;
}
