/**
 * "Was it paid?": the outcome of each own validator's last ended period (model/periods.ts), from
 * its validator poll. No series while no period has ended, or when the outcome is unknown.
 */
import { nAvaxToAvax, VALIDATOR_ENDPOINT, validatorReport } from '../../model/validator.js';
import { escapeLabel } from '../exposition.js';
import { defineCollector, defineFamilies, gauge } from './collector.js';

const F = defineFamilies({
  rewarded: gauge('validator_last_period_rewarded', 'Whether the last ended validation period (of an auto-renewed validator: cycle) was rewarded: 1 paid, 0 not (the reward vote aborted). Absent while unknown.'),
  end: gauge('validator_last_period_end_timestamp_seconds', 'End of the last ended validation period whose outcome is known.'),
  reward: gauge('validator_last_period_reward_avax', 'What the last ended period paid (AVAX): kind="validation" the validation reward (0 when unpaid), kind="delegatee" the delegation commission.'),
  restaked: gauge(
    'validator_last_period_restaked_avax',
    'Of a renewed cycle\'s validation reward (kind="validation" above), the part restaked into the stake (AVAX, autoCompoundRewardShares, capped at the maximum stake); the rest was paid out. Absent for a period that was not renewed.',
  ),
});
const I = F.index;

export default defineCollector({
  name: 'periods',
  families: F.list,
  depends: ({ state }, _memo, deps) => (deps.add(validatorReport(state?.observation.endpoints.find((e) => e.endpoint === VALIDATOR_ENDPOINT))?.periods?.outcomes[0]), true),
  target(w, { base, state }) {
    const report = validatorReport(state?.observation.endpoints.find((e) => e.endpoint === VALIDATOR_ENDPOINT));
    const last = report?.periods?.outcomes[0];
    if (!last || last.rewarded === null) return;
    w.add(I.rewarded, report?.nodeId ? `${base},node_id="${escapeLabel(report.nodeId)}"` : base, last.rewarded ? 1 : 0);
    w.add(I.end, base, last.endTime);
    if (last.validationRewardNAvax !== undefined) w.add(I.reward, `${base},kind="validation"`, nAvaxToAvax(last.validationRewardNAvax));
    if (last.restakedNAvax !== undefined) w.add(I.restaked, base, nAvaxToAvax(last.restakedNAvax));
    if (last.delegateeRewardNAvax !== undefined) w.add(I.reward, `${base},kind="delegatee"`, nAvaxToAvax(last.delegateeRewardNAvax));
  },
});
