import { describe, expect, it } from 'vitest';
import { sanitizeLabelValue } from '../../src/util/labels.js';

describe('label values from untrusted check names', () => {
  it('leaves ordinary names and CB58 IDs alone', () => {
    for (const name of ['C', 'network', 'primary network validator health', '2R7XPcHo4MrMDQ7qMAzXun4nrXdxHoqX7UB5QcWjcN4rt8uceG', 'my-l1.alias:v2']) {
      expect(sanitizeLabelValue(name, 128)).toBe(name);
    }
  });

  it('replaces unsafe characters and appends a hash so distinct names stay distinct', () => {
    const a = sanitizeLabelValue('<script>alert(1)</script>', 128);
    expect(a).toMatch(/^_script_alert_1__\/script_~[0-9a-f]{8}$/);
    expect(sanitizeLabelValue('a"b', 128)).not.toBe(sanitizeLabelValue('a}b', 128));
    expect(sanitizeLabelValue('line\nbreak', 128)).toMatch(/^line_break~[0-9a-f]{8}$/);
  });

  it('caps the length', () => {
    const capped = sanitizeLabelValue('x'.repeat(300), 64);
    expect(capped).toHaveLength(64);
    expect(sanitizeLabelValue('x'.repeat(300), 64)).toBe(capped);
    expect(sanitizeLabelValue('x'.repeat(301), 64)).not.toBe(capped);
  });
});
