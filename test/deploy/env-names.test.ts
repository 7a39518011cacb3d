/**
 * One name per secret: every `${VAR}` that the README, docs/, config/ examples and deploy/ tell a
 * user to set must be a variable the Kubernetes manifests provide, or one of the few that are not
 * meant to come from the manifests (listed below with the reason), so a README that says
 * `${PD_ROUTING_KEY}` while the manifests set `PAGERDUTY_ROUTING_KEY` fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.js';

/** Variables that appear in the examples but are not the manifests' business. */
const NOT_FROM_MANIFESTS: Record<string, string> = {
  VAR: 'placeholder in docs/configuration.md',
  ENV: 'placeholder (`${ENV}` substitution)',
  ENV_VAR: 'placeholder in config/full.yaml',
  AVAHEALTH_STATE_DIR: 'local example config: where to keep state on a workstation',
  NODE_TOKEN: 'example of a node behind a bearer-token proxy, not part of the shipped manifests',
  CLUSTER: 'example label value in config/full.yaml',
  ONCALL_WEBHOOK_URL: 'example of the generic webhook receiver in config/full.yaml',
};

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, ext);
    return ext.test(name) ? [path] : [];
  });
}

const documents = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs'), /\.md$/), ...files(join(ROOT, 'config'), /\.ya?ml$/), ...files(join(ROOT, 'deploy'), /\.ya?ml$/)];

/** `${NAME}` and `${NAME:-default}` references (`$${…}` is a literal and not one). */
function referencedVariables(text: string): string[] {
  return [...text.matchAll(/(?<!\$)\$\{([A-Z][A-Z0-9_]*)(?::-[^}]*)?\}/g)].map((m) => m[1]!);
}

type EnvVar = { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: unknown } };
// a JSON patch appending the container
const container = parse(readFileSync(join(ROOT, 'deploy/kubernetes/components/avahealth/container.yaml'), 'utf8')) as Array<{ value: { env: EnvVar[] } }>;
const manifestEnv = container[0]!.value.env;
const manifestNames = new Set(manifestEnv.map((e) => e.name));

describe('environment variable names agree between README, docs, config examples and manifests', () => {
  it('every ${VAR} a document mentions is set by the manifests (or is not meant to be)', () => {
    const unknown: string[] = [];
    for (const file of documents)
      for (const name of referencedVariables(readFileSync(file, 'utf8'))) if (!manifestNames.has(name) && !(name in NOT_FROM_MANIFESTS)) unknown.push(`${relative(ROOT, file)}: \${${name}}`);
    expect(unknown).toEqual([]);
  });

  it('each secret variable comes from the key of the same name in kebab case, and the README creates only those keys', () => {
    const secretKeys = new Set<string>();
    for (const env of manifestEnv) {
      const ref = env.valueFrom?.secretKeyRef;
      if (!ref) continue;
      expect(ref.name).toBe('avahealth-receivers');
      expect(ref.key).toBe(env.name.toLowerCase().replaceAll('_', '-'));
      secretKeys.add(ref.key);
    }
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const created = [...readme.matchAll(/--from-literal=([a-z0-9-]+)=/g)].map((m) => m[1]!);
    expect(created.length).toBeGreaterThan(0);
    for (const key of created) expect(secretKeys, key).toContain(key);
  });

  it('the variables the shipped configs use are all provided to the container', () => {
    for (const file of files(join(ROOT, 'deploy/kubernetes'), /^avahealth\.yaml$/))
      for (const name of referencedVariables(readFileSync(file, 'utf8'))) expect(manifestNames, `${relative(ROOT, file)}: \${${name}}`).toContain(name);
  });
});
