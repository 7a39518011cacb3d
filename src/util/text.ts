/** Small pure text helpers for untrusted and secret-bearing strings, shared by every layer. */

const MAX_ERROR_TEXT = 300;

/**
 * Replaces every configured secret (4 characters or more) in `text` with [REDACTED], in each form a
 * target may echo it in (`formsOf`); and a secret's head left just before a cut mark (`…`, put there
 * by a length cap that ran before this) when at least 3 of its characters show.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const forms = formsOf(secrets);
  if (forms.length === 0) return text;
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join('[REDACTED]');
  return out.includes(CUT_MARK) ? redactCutHeads(out, forms) : out;
}

const CUT_MARK = '…';
const MIN_CUT_HEAD = 3;

/** `…abc[cut]`: the longest head (3 characters or more) of a form ending right before a cut mark (or its line break) goes. */
function redactCutHeads(text: string, forms: readonly string[]): string {
  return text.replace(/([^\n…]*)(\n?…)/g, (whole, before: string, mark: string) => {
    let longest = 0;
    for (const form of forms) {
      for (let n = Math.min(form.length - 1, before.length); n > longest && n >= MIN_CUT_HEAD; n--) {
        if (before.endsWith(form.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest === 0 ? whole : `${before.slice(0, before.length - longest)}[REDACTED]${mark}`;
  });
}

/**
 * `value` with every secret replaced in every string it holds (objects and arrays walked, Errors
 * turned into their redacted type, message and stack). Returns `value` itself when it holds no secret.
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  const forms = formsOf(secrets);
  if (forms.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (v instanceof Error) return { type: v.name, message: redact(v.message, secrets), ...(v.stack ? { stack: redact(v.stack, secrets) } : {}) };
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const text = value instanceof Error ? `${value.message}${value.stack ?? ''}` : typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  return text.includes(CUT_MARK) || forms.some((form) => text.includes(form)) ? (walk(value) as T) : value;
}

/** Per list of secrets (a target's, a receiver's, the config's: the same array every poll), its forms, worked out once. */
const formsBySecrets = new WeakMap<readonly string[], readonly string[]>();

/**
 * Every secret of 4 characters or more in each form a target may echo it back in (`secretForms`),
 * longest first, so a secret URL is replaced whole before its path is.
 */
function formsOf(secrets: readonly string[]): readonly string[] {
  if (secrets.length === 0) return secrets;
  let forms = formsBySecrets.get(secrets);
  if (!forms) {
    forms = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(secretForms))].sort((a, b) => b.length - a.length);
    formsBySecrets.set(secrets, forms);
  }
  return forms;
}

/** Shorter secrets are not redacted (they would garble every text): the config loader warns of them. */
export const MIN_SECRET_LENGTH = 4;

/**
 * A secret as written and as a target may echo it: as JSON text escapes it (a quote, a backslash),
 * and within JSON within JSON (a node's error body quoting what it was sent); URL-encoded (upper- and
 * lower-case hex, `+` for a space); HTML-escaped; as hex (either case); and base64 (standard and
 * URL-safe, with and without padding), also inside a longer base64 text such as a basic-auth
 * `user:pass` pair or a whole header block encoded (each of the three alignments, when at least 8
 * characters of it are fixed by the secret alone).
 */
export function secretForms(secret: string): string[] {
  const forms = new Set(escapedForms(secret));
  const url = encodeURIComponent(secret);
  for (const form of [url, lowerHexEscapes(url), new URLSearchParams({ s: secret }).toString().slice(2), htmlEscape(secret, '&#39;'), htmlEscape(secret, '&#x27;')]) forms.add(form);
  const bytes = Buffer.from(secret, 'utf8');
  forms.add(bytes.toString('hex'));
  forms.add(bytes.toString('hex').toUpperCase());
  for (const form of base64Forms(bytes)) {
    forms.add(form);
    forms.add(form.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function escapedForms(secret: string): string[] {
  const forms = [secret];
  for (let level = 0; level < MAX_ESCAPE_LEVELS; level++) {
    const escaped = JSON.stringify(forms.at(-1)).slice(1, -1);
    if (escaped === forms.at(-1)) break;
    forms.push(escaped);
  }
  return forms;
}

const MAX_ESCAPE_LEVELS = 3;

const lowerHexEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());

function htmlEscape(text: string, apostrophe: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", apostrophe);
}

/** Base64 characters fixed by the secret alone, at offsets 0, 1 and 2 (mod 3) of a longer encoded text; and the whole padded encoding. */
function base64Forms(bytes: Buffer): string[] {
  const forms = [bytes.toString('base64')];
  for (const offset of [0, 1, 2]) {
    const total = offset + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
    const fixed = encoded.slice(LEADING_MIXED[offset], total % 3 === 0 ? encoded.length : encoded.length - 1);
    if (offset === 0 || fixed.length >= MIN_BASE64_CORE) forms.push(fixed);
  }
  return forms;
}

/** Characters at the start of an encoding at offset 0, 1, 2 that also depend on the bytes before the secret. */
const LEADING_MIXED = [0, 2, 3];
const MIN_BASE64_CORE = 8;

/** A URL fit to show: no user:password@ and no query string (tokens live there). */
export function displayUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}${u.search ? '?…' : ''}`;
}

/**
 * First line-ish of an untrusted body, with HTML tags and control characters removed and cut to
 * 300 characters; every secret (`secrets`) is redacted BEFORE anything is cut, stripped or collapsed
 * (a secret cut at the limit, holding `<b>` or two spaces would no longer be found afterwards).
 */
export function snippet(body: string, secrets: readonly string[] = []): string {
  const text = redact(body.slice(0, 4096 + LONGEST_FORM_SPAN), secrets)
    .slice(0, 4096)
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[\u0000-\u001f\u007f\s]+/g, ' ')
    .trim();
  if (text === '') return '(empty body)';
  return text.length > MAX_ERROR_TEXT ? `${prefixWithin(text, MAX_ERROR_TEXT)}…` : text;
}

/** Room past the 4 KiB read for a secret straddling it (longer forms show a head, redacted as cut). */
const LONGEST_FORM_SPAN = 1024;

const GRAPHEMES = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter('en', { granularity: 'grapheme' }) : undefined;
/** Past the cut, enough for the segmenter to see the last grapheme cluster whole. */
const GRAPHEME_LOOKAHEAD = 32;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text any UTF-8 receiver takes: a lone surrogate (half of an emoji, from a cut or a JSON `\ud83d`) becomes U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/**
 * The longest prefix of `text` within `max` UTF-16 units that ends between two characters: never
 * inside a surrogate pair (half an emoji), and between grapheme clusters (an emoji with its
 * modifiers, a flag, a letter with its accents) unless that would keep less than half of `max`
 * (a cluster of hundreds of combining marks is cut at a code point instead).
 */
export function prefixWithin(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  const highSurrogateLast = (end: number) => end > 0 && text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff;
  const codePointEnd = highSurrogateLast(max) ? max - 1 : max;
  if (!GRAPHEMES) return text.slice(0, codePointEnd);
  let end = 0;
  for (const { index, segment } of GRAPHEMES.segment(text.slice(0, max + GRAPHEME_LOOKAHEAD))) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  return text.slice(0, end * 2 >= max ? end : codePointEnd);
}

/**
 * `text` within `max` UTF-16 units: when longer, cut between characters (`prefixWithin`) and at the
 * end of a word when one ends in the last half of the room (a long ID or URL is cut inside), then
 * `mark`. What is kept is well-formed only if `text` was: receivers apply `wellFormed` to the whole.
 */
export function cutText(text: string, max: number, mark = '…'): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - mark.length);
  const head = prefixWithin(text, room);
  const nextIsSpace = /\s/.test(text.charAt(head.length));
  const lastSpace = nextIsSpace ? head.length : head.search(/\s\S*$/);
  const kept = lastSpace >= 0 && lastSpace * 2 >= room ? head.slice(0, lastSpace) : head;
  return `${kept.trimEnd().replace(/[,;:]+$/, '')}${mark}`;
}
