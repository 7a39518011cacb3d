/**
 * YAML text → a value checked by a zod schema, with `${ENV}` substitution, relative `*_file` paths
 * and every problem located as FILE:LINE:COL. Shared by the config and the web config.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { closest, ConfigError, type ConfigProblem } from './errors.js';
import { WHOLE_MESSAGE } from './primitives.js';

export type Locate = (offset: number | undefined, message: string) => ConfigProblem;

export interface ParsedYaml<T> {
  data: T;
  doc: Document;
  /** A problem at a YAML offset (or at the node of a path, through `nodeAt`). */
  at: Locate;
  warnings: ConfigProblem[];
  /** The values of string scalars that took something from ${ENV} (secrets, whatever their key). */
  templated: Set<string>;
}

export interface YamlOptions {
  /** Keys whose values are paths relative to the config file (made absolute before validation). */
  relativePaths?: { baseDir: string; isPathKey: (key: string) => boolean };
  /** Every key the schema knows, for "did you mean" hints on unknown keys. */
  knownKeys?: () => string[];
}

/** More alias expansions than this is an alias bomb ("billion laughs"), refused rather than built. */
const MAX_ALIAS_COUNT = 100;

export function parseYaml<S extends z.ZodType>(text: string, file: string, schema: S, env: NodeJS.ProcessEnv = process.env, options: YamlOptions = {}): ParsedYaml<z.output<S>> {
  const { relativePaths, knownKeys } = options;
  const lineCounter = new LineCounter();
  const doc = parseDocument(shieldEnvRefs(text), { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at: Locate = (offset, message) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { file, line: pos.line, col: pos.col, message };
  };
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((e) => at(e.pos[0], `YAML syntax error: ${e.message.split('\n')[0]!.trim()}`)));
  }
  // An unset variable becomes an empty value (an optional api_key: ${KEY} simply stays off); if that
  // empty value is not allowed where it stands, the error says which variable was missing.
  const templated = new Set<string>();
  const unset = substituteEnv(doc, env, templated);
  const warnings = [...unset].map(([node, names]) => at(node.range?.[0], `environment variable ${names.join(', ')} is not set; using an empty value`));
  if (relativePaths) resolvePaths(doc, relativePaths.baseDir, relativePaths.isPathKey);
  const result = schema.safeParse(toPlainData(doc, at) ?? {});
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.flatMap((issue) => {
        const names = unset.get(nodeAt(doc, issue.path) as YamlNode);
        return locateIssue(doc, issue, at, knownKeys).map((p) => (names ? { ...p, message: `${p.message} (environment variable ${names.join(', ')} is not set)` } : p));
      }),
    );
  }
  return { data: result.data, doc, at, warnings, templated };
}

function toPlainData(doc: Document, at: Locate): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    let firstAlias: YamlNode | undefined;
    visit(doc, { Alias: (_key, node) => ((firstAlias = node), visit.BREAK) });
    throw new ConfigError([at(firstAlias?.range?.[0], `YAML aliases expand too much (limit ${MAX_ALIAS_COUNT}; an alias bomb?)`)]);
  }
}

/** `${VAR}`, `${VAR:-default}`; `$$` is a literal `$`. Substituted inside string scalars only. */
const ENV_REF = /\$\$|\$[{\uE000]([A-Za-z_][A-Za-z0-9_]*)(?::-([^}\uE001\n]*))?[}\uE001]/g;
const OPEN = '\uE000';
const CLOSE = '\uE001';

/**
 * `{` and `}` may not stand in a plain scalar inside a flow mapping, so `{secret: ${SECRET}}` is not
 * YAML. Before parsing, the braces of each `${…}` become private-use characters of the same length
 * (every line:column stays exact); substituteEnv reads both forms.
 */
function shieldEnvRefs(text: string): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*(?::-[^}\n]*)?)\}/g, (match, inner: string | undefined) => (inner === undefined ? match : `$${OPEN}${inner}${CLOSE}`));
}

/** Substitutes in place; returns the scalars that referenced unset variables (and which), and adds each substituted value to `templated`. */
function substituteEnv(doc: Document, env: NodeJS.ProcessEnv, templated: Set<string>): Map<YamlNode, string[]> {
  const unset = new Map<YamlNode, string[]>();
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !node.value.includes('$')) return;
      let substituted = false;
      node.value = node.value.replace(ENV_REF, (match, name: string | undefined, fallback: string | undefined) => {
        if (match === '$$') return '$';
        substituted = true;
        const value = env[name!];
        if (value !== undefined && value !== '') return value;
        if (fallback !== undefined) return fallback;
        unset.set(node, [...(unset.get(node) ?? []), name!]);
        return '';
      });
      if (substituted && node.value !== '') templated.add(node.value as string);
    },
  });
  return unset;
}

/** Path values (a string, or a list of strings) under the keys `isPathKey` names become absolute. */
function resolvePaths(doc: Document, baseDir: string, isPathKey: (key: string) => boolean): void {
  const absolute = (node: unknown) => {
    if (isScalar(node) && typeof node.value === 'string' && node.value !== '' && !isAbsolute(node.value)) node.value = resolvePath(baseDir, node.value);
  };
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.key) || !isPathKey(String(pair.key.value))) return;
      if (isSeq(pair.value)) pair.value.items.forEach(absolute);
      else absolute(pair.value);
    },
  });
}

/** The node at a zod issue path (keys and list indexes). */
export function nodeAt(doc: Document, path: readonly PropertyKey[]): YamlNode | undefined {
  return (doc.getIn(path as unknown[], true) ?? undefined) as YamlNode | undefined;
}

function locateIssue(doc: Document, issue: z.core.$ZodIssue, at: Locate, knownKeys?: () => string[]): ConfigProblem[] {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') {
    const parent = nodeAt(doc, issue.path);
    return issue.keys.map((key) => {
      const hint = knownKeys && closest(key, knownKeys());
      const location = issue.path.length > 0 ? ` in ${where}` : '';
      // An unknown key is reported at the key itself.
      const keyNode = isMap(parent) ? parent.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key)?.key : undefined;
      return at(((keyNode ?? parent) as YamlNode | undefined)?.range?.[0], `unknown key "${key}"${location}${hint ? ` (did you mean "${hint}"?)` : ''}`);
    });
  }
  // A missing key has no node of its own: point at the nearest parent that exists.
  let path = issue.path;
  let node = nodeAt(doc, path);
  while (!node && path.length > 0) {
    path = path.slice(0, -1);
    node = nodeAt(doc, path);
  }
  let message = `${where}: ${issue.message}`;
  if (issue.code === 'custom' && issue.params?.wholeMessage === WHOLE_MESSAGE.wholeMessage) {
    message = issue.message;
  } else if (issue.code === 'invalid_union') {
    // `false | {…}` and the like: zod says only "Invalid input". The branch the value has the shape
    // of (a mapping for an object branch) says what is wrong inside it.
    const inner = closestBranch(issue, nodeAt(doc, issue.path));
    if (inner) return inner.flatMap((i) => locateIssue(doc, { ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue, at, knownKeys));
    message = `${where}: ${unionExpectation(issue) ?? issue.message}`;
  } else if (issue.code === 'invalid_type' && !issue.message.startsWith('Invalid input')) {
    message = `${where}: ${issue.message}`;
  } else if (issue.code === 'invalid_type') {
    // The value itself is not repeated where it may be a secret (a numeric api_key, say).
    const secretish = /key|secret|token|password|url|auth/i.test(String(issue.path.at(-1) ?? ''));
    const got = describeYaml(nodeAt(doc, issue.path), !secretish);
    const expected = EXPECTED_WORDS[issue.expected] ?? issue.expected;
    message = got === 'nothing' ? `${where}: required (${expected})` : `${where}: expected ${expected}, got ${got}`;
  } else if ((issue.code === 'too_big' || issue.code === 'too_small') && /^Too (big|small)/.test(issue.message)) {
    message = `${where}: ${boundWords(issue)}`;
  } else if (issue.code === 'invalid_key') {
    message = `${where}: invalid key: ${issue.issues.map((i) => i.message).join('; ')}`;
  } else if (issue.code === 'invalid_value' && 'values' in issue) {
    message = `${where}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return [at(node?.range?.[0], message)];
}

/** zod's "Too big: expected number to be <=1" in the words of a YAML file: "must be at most 1". */
function boundWords(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const big = issue.code === 'too_big';
  const bound = String(big ? (issue as z.core.$ZodIssueTooBig).maximum : (issue as z.core.$ZodIssueTooSmall).minimum);
  const inclusive = issue.inclusive !== false;
  const unit = issue.origin === 'array' || issue.origin === 'set' ? (bound === '1' ? ' item' : ' items') : issue.origin === 'string' ? (bound === '1' ? ' character' : ' characters') : '';
  const have = unit ? 'have ' : 'be ';
  if (inclusive) return `must ${have}${big ? 'at most' : 'at least'} ${bound}${unit}`;
  return unit ? `must have ${big ? 'fewer' : 'more'} than ${bound}${unit}` : `must be ${big ? 'below' : 'above'} ${bound}`;
}

/** zod's type names in the words of a YAML file. */
const EXPECTED_WORDS: Record<string, string> = {
  record: 'a mapping (name: value)',
  object: 'a mapping (key: value)',
  array: 'a list',
  string: 'text',
  number: 'a number',
  boolean: 'true or false',
};

/**
 * Of a union's branches, the issues of the one the value has the shape of: the branches that fail
 * only on the value's type at the union's own place are not it. Undefined when none or several are.
 */
function closestBranch(issue: z.core.$ZodIssueInvalidUnion, node: YamlNode | undefined): z.core.$ZodIssue[] | undefined {
  if (node === undefined) return undefined;
  const shaped = issue.errors.filter((branch) => !branch.every((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')));
  return shaped.length === 1 ? shaped[0] : undefined;
}

/** "false or a mapping", from the branches' own expectations. */
function unionExpectation(issue: z.core.$ZodIssueInvalidUnion): string | undefined {
  const words = issue.errors.flatMap((branch) =>
    branch.flatMap((i) => (i.path.length > 0 ? [] : i.code === 'invalid_type' ? [EXPECTED_WORDS[i.expected] ?? i.expected] : i.code === 'invalid_value' ? i.values.map((v) => JSON.stringify(v)) : [])),
  );
  const unique = [...new Set(words)];
  return unique.length > 0 ? `must be ${unique.join(' or ')}` : undefined;
}

function describeYaml(node: YamlNode | undefined, showValue = true): string {
  if (node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return node.value === null ? 'null' : showValue ? `${typeof node.value} ${JSON.stringify(node.value)}` : typeof node.value;
  return 'something else';
}
