import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseErrorBody, parseServiceHealth } from '../../src/parse/terminus.js';
import { OWN_FIXTURES, readJson, SHARED_FIXTURES } from '../helpers/fixtures.js';

const shared = (name: string) => readJson(join(SHARED_FIXTURES, 'data-api', name));
const own = (name: string) => readJson(join(OWN_FIXTURES, 'data-api', name));

describe('hosted API health reports', () => {
  it('ok: every component up', () => {
    expect(parseServiceHealth(shared('health-check-ok.json'))).toEqual({
      ok: true,
      value: { status: 'ok', healthy: true, components: [{ name: 'database', up: true, status: 'up' }, { name: 'cache', up: true, status: 'up' }] },
    });
  });

  it('503 Terminus report: unhealthy, with the failing component and its message', () => {
    expect(parseServiceHealth(shared('health-check-503-terminus.json'))).toEqual({
      ok: true,
      value: {
        status: 'error',
        healthy: false,
        components: [
          { name: 'database', up: true, status: 'up' },
          { name: 'cache', up: false, status: 'down', message: 'Connection is closed.' },
        ],
        message: 'down: cache: Connection is closed.',
      },
    });
  });

  it('503 error body: unhealthy, with the message', () => {
    expect(parseServiceHealth(shared('health-check-503-error-body.json'))).toEqual({
      ok: true,
      value: { status: 'error', healthy: false, components: [], message: 'Service Unavailable' },
    });
  });

  it('null info and error', () => {
    const parsed = parseServiceHealth(own('health-check-null-info-error.json'));
    expect(parsed).toMatchObject({ ok: true, value: { status: 'ok', healthy: true } });
    expect((parsed as { value: { components: unknown[] } }).value.components).toHaveLength(2);
  });

  it('shutting_down is not healthy', () => {
    expect(parseServiceHealth(own('health-check-shutting-down.json'))).toMatchObject({ ok: true, value: { status: 'shutting_down', healthy: false } });
  });

  it('extra component fields are tolerated; a message is kept', () => {
    const parsed = parseServiceHealth(own('health-check-extra-fields.json')) as { value: { components: unknown[]; message: string } };
    expect(parsed.value.components).toEqual([
      { name: 'database', up: true, status: 'up' },
      { name: 'indexer', up: false, status: 'down', message: 'indexer behind by 1200 blocks' },
    ]);
    expect(parsed.value.message).toBe('down: indexer: indexer behind by 1200 blocks');
  });

  it('without details, info and error are merged', () => {
    const parsed = parseServiceHealth(own('health-check-no-details.json')) as { value: { components: Array<{ name: string; up: boolean }> } };
    expect(parsed.value.components.map((c) => [c.name, c.up])).toEqual([
      ['database', true],
      ['cache', false],
    ]);
  });

  it('error bodies with a message array, and what is not a report', () => {
    expect(parseErrorBody(own('error-body-message-array.json'))).toBe('Bad Request: pageSize must not be greater than 100; pageSize must be an integer number');
    expect(parseErrorBody(own('error-body-429.json'))).toBe('Too Many Requests: ThrottlerException: Too Many Requests');
    expect(parseErrorBody({ status: 'ok' })).toBeUndefined();
    expect(parseServiceHealth({ status: 5 })).toEqual({ ok: false, error: '"status" must be a string, got number' });
    expect(parseServiceHealth({ status: 'ok', details: [] })).toEqual({ ok: false, error: '"details" must be an object or null, got an array' });
    expect(parseServiceHealth('ok')).toEqual({ ok: false, error: 'expected a JSON object, got string' });
  });
});
