/**
 * The gate of an attribution (the Action's mode attribute): an attribution reports where a change went; it
 * does not test one, so it passes whenever it completes, whatever it found. Its verdict says which way the
 * instructions per transaction moved from one end to the other: regression when some workload's ends differ
 * upward by its floor or more, else improvement when some differ downward, else no-change.
 */
import type { AttributionReport } from '../../core/attribution/attribution-report.js';
import { flowDecision, type GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { short } from '../../core/util/commit-id.js';

export function attributionDecision(r: AttributionReport, failOn: FailOn): GateDecision {
  const moved = r.workloads.filter((w) => w.endsDiffer);
  const verdict = moved.some((w) => w.changePerTx > 0)
    ? 'regression'
    : moved.some((w) => w.changePerTx < 0)
      ? 'improvement'
      : 'no-change';
  return flowDecision({
    flow: 'attribute',
    verdict,
    failOn,
    lead: `${r.culprits.length} commit${r.culprits.length === 1 ? '' : 's'} named`,
    detail: `${short(r.from.sha)}..${short(r.to.sha)}: ${r.workloads
      .map((w) => `${w.workload} ${w.changePct >= 0 ? '+' : ''}${w.changePct.toFixed(2)}% instructions/tx`)
      .join(', ')}`,
    deciding: r.culprits.map((c) => c.sha),
  });
}
