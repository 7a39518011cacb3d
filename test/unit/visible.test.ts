import { describe, expect, it } from 'vitest';
import { nagiosText, oneLine, visibleControls } from '../../src/util/visible.js';

describe('control characters shown, never obeyed', () => {
  it('C0 as control pictures, DEL, C1 and bidi controls as escapes; line feeds and tabs kept', () => {
    expect(visibleControls('a\u0000b\u0007c\u001b[2Jd\u007fe')).toBe('a␀b␇c␛[2Jd␡e');
    expect(visibleControls('x\u009b31m \u202egnp.exe \u2066y\u2069')).toBe('x\\u009b31m \\u202egnp.exe \\u2066y\\u2069');
    expect(visibleControls('line one\n\tline two')).toBe('line one\n\tline two');
    expect(visibleControls('plain text, é, 🙂')).toBe('plain text, é, 🙂');
  });

  it('one line: breaks and tabs visible too', () => {
    expect(oneLine('a\r\nb\tc\u2028d')).toBe('a␍␊b␉c\\u2028d');
  });

  it('Nagios text: one line and no `|`, which would start performance data', () => {
    expect(nagiosText('OK - fine | fake=1\nmore')).toBe('OK - fine ¦ fake=1␊more');
  });
});
