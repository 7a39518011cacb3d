/**
 * Control characters shown, never obeyed: text from a node, a hosted API or discovery may hold NUL,
 * BEL, ESC sequences (a terminal running `curl` of the page would execute them), CR/LF (a Nagios
 * status line split in two) or bidi overrides (text that reads in another order than it is stored).
 * Each becomes a visible sign: C0 controls their Unicode control picture (`␀`, `␇`, `␛`), DEL `␡`,
 * C1, bidi and line-separator characters a `\uXXXX` escape.
 */

const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function sign(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Every control character visible; line feeds and tabs kept (multi-line error text stays readable). */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, sign);
}

/** One line: every control character visible, line breaks and tabs included (`␊`, `␍`, `␉`). */
export function oneLine(text: string): string {
  return text.replace(CONTROLS_AND_BREAKS, sign);
}

/**
 * Text for a Nagios plugin's output: one line, and no `|` (it starts performance data, on the
 * status line and on every long-output line alike): `¦` instead.
 */
export function nagiosText(text: string): string {
  return oneLine(text).replaceAll('|', '¦');
}
