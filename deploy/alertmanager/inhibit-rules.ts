/**
 * Alertmanager inhibit rules derived from the rule modules (src/alerts/rules/): `npm run generate`
 * writes them into deploy/alertmanager/alertmanager.yml (the rest of that file is edited by hand),
 * and a test fails when the checked-in file differs.
 *
 * - Every Prometheus `…Critical` twin inhibits its warning rule for the same alert.
 * - avahealth's own alerts keep their name and labels; while one is critical the daemon sends a
 *   `critical` sibling besides its `warning` copy (receivers/alertmanager/send.ts), which holds the
 *   warning back, and ends both together, so the warning's resolve is never muted.
 * - An unreachable node pages once: the alerts about what its health API says wait.
 * - One page per problem: each root cause a rule module declares (`inhibits`) holds back its
 *   symptoms on the same target, under any of their Prometheus names too.
 */
import { IDENTITY_LABELS } from '../../src/alerts/rules/rule.js';
import { INHIBITIONS, RULES, ruleNamed } from '../../src/alerts/rules/index.js';

export interface InhibitRule {
  source_matchers: string[];
  target_matchers: string[];
  equal: string[];
}

/** Labels two alerts must share to be the same alert (absent on both counts as equal in Alertmanager). */
const SAME_ALERT = ['target', ...IDENTITY_LABELS];

export function inhibitRules(): Array<{ comment: string; rule: InhibitRule }> {
  const twins = RULES.flatMap((rule) =>
    rule.prometheus
      .filter((p) => p.labels.severity === 'critical' && p.alert === `${rule.name}Critical`)
      .map((critical) => ({
        comment: `${critical.alert} (Prometheus) inhibits ${rule.name}`,
        rule: { source_matchers: [`alertname="${critical.alert}"`], target_matchers: [`alertname="${rule.name}"`], equal: SAME_ALERT },
      })),
  );
  const unreachable = 'AvalancheNodeUnreachable';
  const behindIt = RULES.filter((r) => (r.source === 'node' || r.source === 'lag') && r.name !== unreachable).flatMap((r) => [r.name, ...r.prometheus.map((p) => p.alert)]);
  const waiting = {
    comment: 'An unreachable node pages once: the alerts about what its health API says wait',
    rule: { source_matchers: [`alertname="${unreachable}"`], target_matchers: [`alertname=~"${[...new Set(behindIt)].join('|')}"`], equal: ['target'] },
  };
  /** A rule's alert names on both paths: avahealth's own and its Prometheus twins'. */
  const namesOf = (name: string) => [...new Set([name, ...(ruleNamed(name)?.prometheus.map((p) => p.alert) ?? [])])];
  const matcher = (names: string[]) => (names.length === 1 ? `alertname="${names[0]}"` : `alertname=~"${names.join('|')}"`);
  const rootCauses = INHIBITIONS.flatMap((i) => {
    const symptom = `${i.alertname}${Object.entries(i.labels ?? {}).map(([k, v]) => `{${k}="${v}"}`).join('')}`;
    const cause = `${i.source}${Object.entries(i.from ?? {}).map(([k, v]) => `{${k}="${v}"}`).join('')}`;
    const rule = (source: string[], target: string[]) => ({
      source_matchers: [matcher(namesOf(i.source)), ...Object.entries(i.from ?? {}).map(([k, v]) => `${k}="${v}"`), ...source],
      target_matchers: [matcher(namesOf(i.alertname)), ...Object.entries(i.labels ?? {}).map(([k, v]) => `${k}="${v}"`), ...target],
      // A network's alert has the network for its target; its validators' alerts carry no network label to match.
      equal: i.across === 'network' ? [] : ['target'],
    });
    if (!i.sameAs) return [{ comment: `${cause} holds back ${symptom}: ${i.because}`, rule: rule([], []) }];
    // Alertmanager's `equal` compares one label name on both sides: one rule per value instead.
    const { label, as, values, rest } = i.sameAs;
    return [
      ...values.map((value) => ({ comment: `${i.source}{${as}="${value}"} holds back ${symptom}{${label}="${value}"}: ${i.because}`, rule: rule([`${as}="${value}"`], [`${label}="${value}"`]) })),
      ...(rest ? [{ comment: `${i.source}{${as}=~"${rest}"} holds back ${symptom}{${label}=~"${rest}"} (any such ${label}: Alertmanager cannot tell which): ${i.because}`, rule: rule([`${as}=~"${rest}"`], [`${label}=~"${rest}"`]) }] : []),
    ];
  });
  const own = RULES.map((r) => r.name).join('|');
  const sibling = {
    comment: "An incident's critical sibling holds back its warning copy (the daemon ends both together, so the warning's resolve is heard)",
    rule: { source_matchers: [`alertname=~"${own}"`, 'severity="critical"'], target_matchers: [`alertname=~"${own}"`, 'severity="warning"'], equal: ['alertname', ...SAME_ALERT] },
  };
  return [...twins, sibling, waiting, ...rootCauses];
}
