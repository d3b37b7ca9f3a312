/**
 * The gate: whether the step fails under `fail-on`, and the commit status it sets. A run that did not
 * finish never passes; an undecided comparison is pending, neither silently green nor red.
 */
import type { ArmCell } from '../compare/extreme-cell.js';
import type { OverallVerdict, RunComparison } from '../compare/types.js';
import type { CommitState } from '../github/api.js';
import { METRICS } from '../results/metrics.js';
import type { RunResult } from '../results/types.js';
import type { ActionInputs } from './inputs.js';

/** A run that did not complete fails the step (partial data never passes a gate), unless fail-on is never. */
export function unfinishedFailure(result: RunResult, failOn: ActionInputs['failOn']): string | undefined {
  if (failOn === 'never') return undefined;
  const why = result.stopReason ? ` (${result.stopReason})` : '';
  return `the run is '${result.status}'${why}: partial results decide nothing (fail-on: ${failOn})`;
}

/** Why the step fails under `fail-on`, or undefined when it passes. */
export function gateFailure(comparison: RunComparison, failOn: ActionInputs['failOn']): string | undefined {
  const v = comparison.verdict;
  if (failOn === 'never') return undefined;
  if (v === 'regression' || v === 'mixed')
    return `performance ${v === 'mixed' ? 'regressed in some cells' : 'regressed'} (fail-on: ${failOn})`;
  if (comparison.likelyRegressions.length > 0)
    return `a regression is likely in ${comparison.likelyRegressions.join(', ')} (too few runs to certify it; fail-on: ${failOn})`;
  if (failOn === 'inconclusive' && v === 'inconclusive')
    return 'the comparison is inconclusive (fail-on: inconclusive)';
  return undefined;
}

/**
 * The commit status: failure when the gate fails; pending ("needs more rounds") when the data cannot tell and
 * the gate does not fail on that, so an undecided PR is neither silently green nor red; else success.
 */
export function statusState(verdict: OverallVerdict, failure: string | undefined): CommitState {
  if (failure) return 'failure';
  if (verdict === 'inconclusive') return 'pending';
  return 'success';
}

/**
 * e.g. "Regression; worst latency p99 +174.0% (tpcb@8)": the worst cell over every gated metric, named, since a
 * latency rise can be what decided the verdict.
 */
export function statusDescription(verdict: OverallVerdict, worst: ArmCell | null): string {
  const words: Record<OverallVerdict, string> = {
    regression: 'Regression',
    improvement: 'Improvement',
    'no-change': 'No change',
    inconclusive: 'Inconclusive',
    mixed: 'Mixed',
  };
  const d = worst?.cell.deltaPct;
  const delta =
    worst && d !== null && d !== undefined
      ? `; worst ${METRICS[worst.cell.metric].label} ${d >= 0 ? '+' : ''}${d.toFixed(1)}% (${worst.cell.id})`
      : '';
  const more = verdict === 'inconclusive' ? ': needs more rounds' : '';
  return `${words[verdict]}${more}${delta}`;
}
