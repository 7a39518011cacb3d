/**
 * What dependency-cruiser cannot see, since it reads imports, not calls (run by `npm run
 * check:layers` after it): only the verdict stage (src/alerts/verdicts.ts) calls a rule's
 * `evaluate`, so every surface (the daemon, `check`, the views) judges through the pipeline and no
 * side door keeps its own copy of the rules; and nothing under src/app/ deletes a field of a value
 * (`check` once edited private rule inputs to make the rules decide in one round: the verdict
 * stage's one-round mode does that now). Test files beside the code may call a rule directly.
 *
 *   tsx scripts/check-rule-calls.ts [ROOT]     exit 1 and one line per violation
 */
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const VERDICT_STAGE = 'src/alerts/verdicts.ts';
const RULE_DEFINITION = 'src/alerts/rules/rule.ts';

const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile.bind(ts.sys));
if (configFile.error) throw new Error(ts.flattenDiagnosticMessageText(configFile.error.messageText, '\n'));
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
const checker = program.getTypeChecker();

const pathOf = (file: ts.SourceFile) => relative(root, file.fileName).split('\\').join('/');
const violations: string[] = [];

/** Whether the called property is `evaluate` of the AlertRule interface (what every rule module defines). */
function callsRuleEvaluate(call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'evaluate') return false;
  const symbol = checker.getSymbolAtLocation(callee.name);
  return (symbol?.declarations ?? []).some((d) => pathOf(d.getSourceFile()) === RULE_DEFINITION);
}

for (const file of program.getSourceFiles()) {
  const path = pathOf(file);
  if (!path.startsWith('src/') || path.endsWith('.test.ts')) continue;
  const visit = (node: ts.Node): void => {
    const where = () => `${path}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
    if (ts.isCallExpression(node) && path !== VERDICT_STAGE && callsRuleEvaluate(node)) {
      violations.push(`${where()}: calls a rule's evaluate; only the verdict stage (${VERDICT_STAGE}) does (run the pipeline: alerts/engine.ts, or alerts/round.ts for one round)`);
    }
    if (ts.isDeleteExpression(node) && path.startsWith('src/app/')) {
      violations.push(`${where()}: deletes a field; app/ hands the stages what they are given (a one-round mode belongs to the stage)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

if (violations.length > 0) {
  process.stderr.write(`${violations.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`✔ only ${VERDICT_STAGE} calls a rule's evaluate; nothing in src/app/ deletes a field\n`);
