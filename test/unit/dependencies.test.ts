/** The comparison behind a collector's `depends` (src/metrics/collectors/collector.ts). */
import { describe, expect, it } from 'vitest';
import { Dependencies } from '../../src/metrics/collectors/collector.js';

const compare = (deps: Dependencies, values: unknown[]) => {
  deps.start();
  for (const value of values) deps.add(value);
  return deps.changed();
};

describe('Dependencies', () => {
  it('differs the first time, then only when a value or the count changes', () => {
    const deps = new Dependencies();
    const a = {};
    expect(compare(deps, [a, 1])).toBe(true);
    expect(compare(deps, [a, 1])).toBe(false);
    expect(compare(deps, [a, 2])).toBe(true);
    expect(compare(deps, [a])).toBe(true);
    expect(compare(deps, [a])).toBe(false);
  });

  it('differs after clear(), even when nothing is handed in (a render that did not depend on anything is not kept)', () => {
    const deps = new Dependencies();
    expect(compare(deps, [])).toBe(true);
    expect(compare(deps, [])).toBe(false);
    deps.clear();
    expect(compare(deps, [])).toBe(true);
    expect(compare(deps, [])).toBe(false);
  });
});
