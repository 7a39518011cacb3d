/** Small pure text helpers for untrusted and secret-bearing strings, shared by every layer. */

const MAX_ERROR_TEXT = 300;

/** Replaces every configured secret (4 characters or more) in `text` with [REDACTED], as written and as JSON text escapes it. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const form of formsOf(secrets)) out = out.split(form).join('[REDACTED]');
  return out;
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
  return forms.some((form) => text.includes(form)) ? (walk(value) as T) : value;
}

/** Per list of secrets (a target's, a receiver's, the config's: the same array every poll), its forms, worked out once. */
const formsBySecrets = new WeakMap<readonly string[], readonly string[]>();

/**
 * Every secret of 4 characters or more as written and, when JSON escapes it (a quote, a
 * backslash), as it reads inside JSON text and inside JSON text within JSON text (a node's error
 * body quoting what it was sent, shown in our error text as it came). Longest first, so a secret
 * URL is replaced whole before its path is.
 */
function formsOf(secrets: readonly string[]): readonly string[] {
  if (secrets.length === 0) return secrets;
  let forms = formsBySecrets.get(secrets);
  if (!forms) {
    forms = secrets.filter((s) => s.length >= 4).flatMap(escapedForms).sort((a, b) => b.length - a.length);
    formsBySecrets.set(secrets, forms);
  }
  return forms;
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

/** A URL fit to show: no user:password@ and no query string (tokens live there). */
export function displayUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}${u.search ? '?…' : ''}`;
}

/** First line-ish of an untrusted body, with HTML tags and control characters removed. */
export function snippet(body: string): string {
  const text = body
    .slice(0, 4096)
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[\u0000-\u001f\u007f\s]+/g, ' ')
    .trim();
  if (text === '') return '(empty body)';
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}
