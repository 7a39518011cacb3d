// The layering check (npm run check:layers) run for real: dependency-cruiser with the project's own
// rules, on tiny source trees that import up and down, and on the repository itself.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const RULES = join(ROOT, '.dependency-cruiser.cjs');
const BASELINE = join(ROOT, '.dependency-cruiser-known-violations.json');

interface Run {
  code: number;
  output: string;
}

function depcruise(cwd: string, extraArgs: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'src', '--config', RULES, '--output-type', 'err', ...extraArgs], { cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

let scratch: string;

/** A scratch project with the given files under it (paths relative to the project root). */
async function project(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(scratch, name);
  const all = { 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }), ...files };
  for (const [path, text] of Object.entries(all)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'avahealth-layers-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('layering check', () => {
  it('fails an import that runs back up (store → metrics) and names the rule', async () => {
    const dir = await project('upward', {
      'src/metrics/view.ts': 'export const view = 1;\n',
      'src/store.ts': "import { view } from './metrics/view.js';\nexport const store = view;\n",
    });
    const run = await depcruise(dir);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('no-upward-from-store: src/store.ts → src/metrics/view.ts');
  });

  it('fails an http module that imports the status page', async () => {
    const dir = await project('http-status', {
      'src/status/assets.ts': 'export const css = "";\n',
      'src/http/routes/metrics.ts': "import { css } from '../../status/assets.js';\nexport const r = css;\n",
    });
    const run = await depcruise(dir);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('http-knows-no-status-page: src/http/routes/metrics.ts → src/status/assets.ts');
  });

  it('fails a new file that belongs to no layer, and a circle', async () => {
    const dir = await project('stray-and-circle', {
      'src/model/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/model/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      'src/stray.ts': "import { a } from './model/a.js';\nexport const s = a;\n",
    });
    const run = await depcruise(dir);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('every-file-in-a-layer: src/stray.ts → src/model/a.ts');
    expect(run.output).toMatch(/no-circular: src\/model\/a\.ts → \s*src\/model\/b\.ts/);
  });

  it('lets config import the rule definitions it loads, but not the engine', async () => {
    const dir = await project('config-definitions', {
      'src/alerts/rules/disk-low.ts': 'export const name = "AvalancheDiskLow";\n',
      'src/alerts/engine.ts': 'export const engine = 1;\n',
      'src/config/schema.ts': "import { name } from '../alerts/rules/disk-low.js';\nexport const n = name;\n",
      'src/config/load.ts': "import { engine } from '../alerts/engine.js';\nexport const e = engine;\n",
    });
    const run = await depcruise(dir);
    expect(run.output).not.toContain('src/config/schema.ts →');
    expect(run.output).toContain('no-upward-from-config: src/config/load.ts → src/alerts/engine.ts');
  });

  it('keeps the alert stages one way: pipeline → state → policy → incidents → rules, and the notifier apart', async () => {
    const dir = await project('alert-stages', {
      'src/alerts/verdicts.ts': 'export const verdicts = 1;\n',
      'src/alerts/incidents.ts': "import { verdicts } from './verdicts.js';\nexport const incidents = verdicts;\n",
      'src/alerts/policy.ts': "import { incidents } from './incidents.js';\nimport { notifier } from './notifier.js';\nexport const policy = incidents + notifier;\n",
      'src/alerts/persistence.ts': "import { policy } from './policy.js';\nexport const state = policy;\n",
      'src/alerts/engine.ts': "import { state } from './persistence.js';\nexport const engine = state;\n",
      'src/alerts/notifier.ts': "import { verdicts } from './verdicts.js';\nexport const notifier = verdicts;\n",
    });
    const run = await depcruise(dir);
    expect(run.output).toContain('stages-know-no-notifier: src/alerts/policy.ts → src/alerts/notifier.ts');
    expect(run.output).toContain('notifier-knows-no-stage: src/alerts/notifier.ts → src/alerts/verdicts.ts');
    for (const down of ['engine.ts → src/alerts/persistence', 'persistence.ts → src/alerts/policy', 'policy.ts → src/alerts/incidents', 'incidents.ts → src/alerts/verdicts']) expect(run.output).not.toContain(`src/alerts/${down}`);
    const upward = await project('alert-stage-upward', {
      'src/alerts/engine.ts': 'export const engine = 1;\n',
      'src/alerts/incidents.ts': "import { engine } from './engine.js';\nexport const incidents = engine;\n",
    });
    expect((await depcruise(upward)).output).toContain('alert-stage-incidents-imports-down-only: src/alerts/incidents.ts → src/alerts/engine.ts');
  });

  it('keeps routing with the receivers: a receiver importing the notifier is refused', async () => {
    const dir = await project('receiver-up', {
      'src/alerts/receivers/route.ts': 'export const routeTo = 1;\n',
      'src/alerts/notifier.ts': "import { routeTo } from './receivers/route.js';\nexport const notifier = routeTo;\n",
      'src/alerts/receivers/alertmanager/mirror.ts': "import { notifier } from '../../notifier.js';\nimport { routeTo } from '../route.js';\nexport const mirror = notifier + routeTo;\n",
    });
    const run = await depcruise(dir);
    expect(run.output).toContain('receivers-know-no-notifier: src/alerts/receivers/alertmanager/mirror.ts → src/alerts/notifier.ts');
    expect(run.output).not.toContain('src/alerts/notifier.ts → src/alerts/receivers/route.ts');
  });

  it('passes imports that run down, from the CLI to the foundation', async () => {
    const dir = await project('downward', {
      'src/util/text.ts': 'export const redact = (s: string) => s;\n',
      'src/store.ts': "import { redact } from './util/text.js';\nexport const store = redact;\n",
      'src/metrics/view.ts': "import { store } from '../store.js';\nexport const view = store;\n",
      'src/app/daemon.ts': "import { view } from '../metrics/view.js';\nexport const daemon = view;\n",
      'src/cli.ts': "import { daemon } from './app/daemon.js';\nexport const cli = daemon;\n",
    });
    const run = await depcruise(dir);
    expect(run.output).toContain('no dependency violations found');
    expect(run.code).toBe(0);
  });

  it('passes on this repository with its known violations, which do not hide a new one', async () => {
    const repo = await depcruise(ROOT, ['--ignore-known', BASELINE]);
    expect(repo.output).toContain('no dependency violations found');
    expect(repo.code).toBe(0);

    const dir = await project('new-beside-known', {
      'src/metrics/view.ts': 'export const view = 1;\n',
      'src/store.ts': "import { view } from './metrics/view.js';\nexport const store = view;\n",
    });
    const run = await depcruise(dir, ['--ignore-known', BASELINE]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('no-upward-from-store: src/store.ts → src/metrics/view.ts');
  }, 120_000); // two dependency-cruiser runs over the whole repository: ~10 s each alone, far more on a loaded machine
});

/** scripts/check-rule-calls.ts (the second half of `npm run check:layers`) on a project root. */
function ruleCalls(root: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'scripts', 'check-rule-calls.ts'), root], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

describe('only the verdict stage calls a rule', () => {
  const ruleModule = [
    'export interface AlertRule { name: string; evaluate(input: { scopeAwaited?: boolean }, ctx: object, state: unknown): unknown[]; }',
    "export const rule: AlertRule = { name: 'R', evaluate: () => [] };",
  ].join('\n');

  it('fails a side door: app/ calling a rule\'s evaluate itself, and deleting a field of its input', async () => {
    const dir = await project('side-door', {
      'src/alerts/rules/rule.ts': ruleModule,
      'src/alerts/verdicts.ts': "import { rule } from './rules/rule.js';\nexport const verdicts = () => rule.evaluate({}, {}, undefined);\n",
      'src/app/check.ts': "import { rule } from '../alerts/rules/rule.js';\nconst input = { scopeAwaited: true };\ndelete input.scopeAwaited;\nexport const own = rule.evaluate(input, {}, undefined);\n",
    });
    const run = await ruleCalls(dir);
    expect(run.code).toBe(1);
    expect(run.output).toContain("src/app/check.ts:4: calls a rule's evaluate; only the verdict stage (src/alerts/verdicts.ts) does");
    expect(run.output).toContain('src/app/check.ts:3: deletes a field');
    expect(run.output).not.toContain('src/alerts/verdicts.ts:');
  }, 120_000);

  it('passes on this repository: check runs the pipeline', async () => {
    const run = await ruleCalls(ROOT);
    expect(run.output).toContain("only src/alerts/verdicts.ts calls a rule's evaluate");
    expect(run.code).toBe(0);
  }, 120_000);
});
