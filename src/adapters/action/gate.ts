/**
 * The gate's Action outputs, rendered from the decision (src/core/compare/decision.ts): nothing here decides.
 * verdict, outcome and worst-delta as strings, and the path of the decision's JSON file.
 */
import type { Decision } from '../../core/compare/decision.js';
import { extremeCell } from '../../core/compare/extreme-cell.js';
import type { RunComparison } from '../../core/compare/types.js';
import type { ActionIO, ActionOutcome } from './action-deps.js';

/** verdict, outcome, worst-delta (the first metric's most adverse delta, its documented meaning), decision-json. */
export function setDecisionOutputs(
  io: ActionIO,
  decision: Decision,
  comparisons: RunComparison | readonly RunComparison[],
  decisionFile: string,
): void {
  const first = Array.isArray(comparisons) ? comparisons[0] : (comparisons as RunComparison);
  const worst = extremeCell(comparisons, 'worst', first?.metric)?.cell.deltaPct ?? undefined;
  io.setOutput('verdict', decision.verdict);
  io.setOutput('outcome', decision.outcome);
  io.setOutput('worst-delta', worst === undefined ? '' : worst.toFixed(2));
  io.setOutput('decision-json', decisionFile);
}

/** The commit status of the decision, linked to the run. */
export function statusOf(decision: Decision, runUrl: string | undefined) {
  return { ...decision.status, ...(runUrl ? { targetUrl: runUrl } : {}) };
}

/** What the mode returns: the verdict, and the step's failure when the gate fails. */
export function outcomeOf(decision: Decision, resultsFile: string, reportFile: string): ActionOutcome {
  return {
    verdict: decision.verdict,
    ...(decision.failure !== undefined ? { failure: decision.failure } : {}),
    resultsFile,
    reportFile,
  };
}
