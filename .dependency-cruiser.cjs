// The layering of src/ (docs/architecture.md), enforced by `npm run check:layers` in CI.
// Imports run DOWN only: a module may import its own layer and the layers below it, never one above.
// Today's known exceptions are listed in .dependency-cruiser-known-violations.json (shrink it, never
// grow it: `npm run check:layers` fails on every violation that is not in that file).

/** Top to bottom. Each entry: a name and the path regex of the files in that layer. */
const layers = [
  ['cli', '^src/cli([.]ts$|/)'],
  ['app', '^src/app/'],
  ['http-server', '^src/http/(server|connections|webconfig|gate|bcrypt|bcrypt-worker|login-limits)[.]ts$|^src/http/routes/'],
  ['status', '^src/status/'],
  ['http-route', '^src/http/route[.]ts$'],
  ['alerts', '^src/alerts/'],
  ['metrics', '^src/metrics/'],
  ['scheduling', '^src/(poller[.]ts$|scheduler/|discovery/)'],
  ['probes', '^src/probes/'],
  ['transport-and-parsing', '^src/(transport/|parse/|openapi/)'],
  ['store', '^src/store[.]ts$'],
  ['config', '^src/config/'],
  ['foundation', '^src/(model/|util/|state/|log[.]ts$|version[.]ts$|shard[.]ts$)'],
];

// The definition modules that config/ may import although they live in alerts/: one module per alert
// rule and the receivers' zod slices. They in turn may import only what config may import.
const ruleDefinitions = '^src/alerts/rules/';
const receiverSchemas = '^src/alerts/receivers/([^/]+/schema|schemas|primitives)[.]ts$';
const sim = '^src/sim/';

// The alert core's stages (docs/alerting.md, "The pipeline"), top to bottom: the pipeline wires them;
// each stage may import the stages below it, never one above. The notifier (with its outboxes and
// receivers) receives batches and imports no stage; no stage imports it.
const alertStages = [
  ['pipeline', '^src/alerts/(engine|round)[.]ts$'],
  ['state', '^src/alerts/persistence[.]ts$'],
  ['policy', '^src/alerts/(policy|gate|flaps|silences)[.]ts$'],
  ['incidents', '^src/alerts/incidents[.]ts$'],
  ['rules-stage', '^src/alerts/verdicts[.]ts$'],
];
const notifierSide = '^src/alerts/(notifier|outbox)[.]ts$|^src/alerts/receivers/(?!([^/]+/schema|schemas|primitives)[.]ts$)';
const anyStage = alertStages.map(([, path]) => `(${path})`).join('|');

const anyLayer = layers.map(([, path]) => `(${path})`).join('|');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layers.slice(1).map(([name, path], index) => ({
      name: `no-upward-from-${name}`,
      severity: 'error',
      comment: `${name} may import only its own layer and the layers below it (docs/architecture.md).`,
      from: { path },
      to: {
        path: layers.slice(0, index + 1).map(([, above]) => `(${above})`).join('|'),
        ...(name === 'config' ? { pathNot: `${ruleDefinitions}|${receiverSchemas}` } : {}),
      },
    })),
    ...alertStages.slice(1).map(([name, path], index) => ({
      name: `alert-stage-${name}-imports-down-only`,
      severity: 'error',
      comment: `The ${name} stage may import only the alert stages below it (docs/alerting.md, "The pipeline").`,
      from: { path },
      to: { path: alertStages.slice(0, index + 1).map(([, above]) => `(${above})`).join('|') },
    })),
    {
      name: 'notifier-knows-no-stage',
      severity: 'error',
      comment: 'The notifier receives batches (types.ts BatchSink) and knows no stage of the alert pipeline.',
      from: { path: notifierSide },
      to: { path: anyStage, pathNot: '^src/alerts/silences[.]ts$' },
    },
    {
      name: 'receivers-know-no-notifier',
      severity: 'error',
      comment: 'Routing lives with the receivers (receivers/route.ts): a receiver never imports the notifier or its outboxes, which import it.',
      from: { path: '^src/alerts/receivers/' },
      to: { path: '^src/alerts/(notifier|outbox)[.]ts$' },
    },
    {
      name: 'stages-know-no-notifier',
      severity: 'error',
      comment: 'The alert stages hand batches to a BatchSink (types.ts); they never import the notifier, its outboxes or the receivers.',
      from: { path: anyStage },
      to: { path: notifierSide },
    },
    {
      name: 'http-knows-no-status-page',
      severity: 'error',
      comment: 'http/ serves routes over a read-only state view; the status page hands its routes and assets in.',
      from: { path: '^src/http/' },
      to: { path: '^src/status/' },
    },
    {
      name: 'rule-definitions-depend-on-model-and-util-only',
      severity: 'error',
      comment: 'A rule module (src/alerts/rules/**) is a definition that config/ loads: it may import model/, util/, its siblings and packages.',
      from: { path: ruleDefinitions },
      to: { path: '^src/', pathNot: `^src/(model|util)/|${ruleDefinitions}` },
    },
    {
      name: 'receiver-schemas-depend-on-zod-util-primitives-only',
      severity: 'error',
      comment: "A receiver's config slice is loaded by config/: it may import zod, util/, config/primitives.ts and other receiver schemas.",
      from: { path: receiverSchemas },
      to: { path: '^src/', pathNot: `^src/util/|^src/config/primitives[.]ts$|${receiverSchemas}` },
    },
    {
      name: 'sim-is-an-island',
      severity: 'error',
      comment: 'The simulator may import model/, util/, openapi/ and parse/ only.',
      from: { path: sim },
      to: { path: '^src/', pathNot: `${sim}|^src/(model|util|openapi|parse)/` },
    },
    {
      name: 'only-cli-and-app-use-the-sim',
      severity: 'error',
      comment: 'The simulator is started by the CLI and the app (demo), never used by the daemon parts.',
      from: { path: '^src/', pathNot: `${sim}|^src/cli/main[.]ts$|^src/app/` },
      to: { path: sim },
    },
    {
      name: 'every-file-in-a-layer',
      severity: 'error',
      comment: 'A new file in src/ must belong to a layer: add its path to the layers in .dependency-cruiser.cjs.',
      from: { path: '^src/', pathNot: `${anyLayer}|${sim}` },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other in a circle cannot be read or tested one at a time.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-dev-dependencies',
      severity: 'error',
      comment: 'src/ ships in the package: it may not import devDependencies (tests beside the code are not shipped).',
      from: { path: '^src/', pathNot: '[.]test[.]ts$' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type that runs back up ties the layers together just the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
