/**
 * A 429 is the caller's quota, not the service's health: the rules hold its alerts as they are
 * (UNKNOWN), and every surface shows the same (status/status.ts): the last answer's state, or
 * pending if there was none, raised by what is open (status/verdict.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ServiceTarget } from '../../src/config/load.js';
import { targetStatus } from '../../src/status/status.js';
import { Store } from '../../src/store.js';
import { serviceState } from '../helpers/states.js';

const service = { name: 'data-api', kind: 'service', baseUrl: 'https://data-api.example', labels: {} } as unknown as ServiceTarget;
const limited = serviceState('data-api', { reason: 'rate_limited', error: 'rate limited: no requests until 2026-11-28T12:00:05.000Z' }).observation;

describe('a rate-limited service on the status surfaces', () => {
  it('keeps the state of its last answer and says why nothing is known now', () => {
    const store = new Store();
    store.record(serviceState('data-api', { status: 'ok', healthy: true, components: [] }).observation);
    store.record(limited);
    expect(targetStatus(service, store)).toMatchObject({ state: 'healthy', rateLimited: 'rate limited: no requests until 2026-11-28T12:00:05.000Z', summary: 'rate limited: no requests until 2026-11-28T12:00:05.000Z: its health is not known meanwhile' });
    expect(targetStatus(service, store).failure).toBeUndefined();
  });

  it('is pending when it was rate limited before it ever answered', () => {
    const store = new Store();
    store.record(limited);
    expect(targetStatus(service, store)).toMatchObject({ state: 'pending', rateLimited: expect.stringMatching(/^rate limited/) });
  });

  it('a failure to connect is still unreachable', () => {
    const store = new Store();
    store.record(serviceState('data-api', { reason: 'connect', error: 'connection refused' }).observation);
    expect(targetStatus(service, store)).toMatchObject({ state: 'unreachable' });
  });
});
