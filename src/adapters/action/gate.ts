/**
 * The gate of every Action mode, rendered from the flow's decision (src/core/compare/decision/flow-decision.ts):
 * nothing here decides. decision.json written, the outputs verdict, outcome and decision-json (and a
 * comparison's worst-delta, results-json and report-markdown), the step's failure.
 */
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import { writeDecision } from '../../flows/compare/pipeline/decide-run.js';
import { extremeCell } from '../../core/compare/analysis/extreme-cell.js';
import type { RunComparison } from '../../core/compare/comparison-types.js';
import type { OutputSide } from '../../flows/publish/publish.js';
import type { ActionIO, ActionOutcome } from './action-deps.js';
import { headlineText } from '../../core/compare/decision/flow-decision.js';

/** verdict, outcome, worst-delta (the first metric's most adverse delta, its documented meaning), decision-json. */
export function setDecisionOutputs(
  io: ActionIO,
  decision: GateDecision,
  comparisons: RunComparison | readonly RunComparison[],
  decisionFile: string,
): void {
  const first = Array.isArray(comparisons) ? comparisons[0] : (comparisons as RunComparison);
  const worst = extremeCell(comparisons, 'worst', first?.metric)?.cell.deltaPct ?? undefined;
  setGateOutputs(io, decision, decisionFile);
  io.setOutput('worst-delta', worst === undefined ? '' : worst.toFixed(2));
}

/** The step's side of publishing a verdict: the job summary, the decision's outputs, results-json and report-markdown. */
export function outputSide(io: ActionIO): OutputSide {
  return {
    writeSummary: (markdown) => io.writeSummary(markdown),
    setOutputs: (decision, comparisons, files) => {
      setDecisionOutputs(io, decision, comparisons, files.decisionFile);
      io.setOutput('results-json', files.resultsFiles.join('\n'));
      io.setOutput('report-markdown', files.reportFile);
    },
  };
}

/** The outputs every mode's decision sets: verdict, outcome, decision-json. */
export function setGateOutputs(io: ActionIO, decision: GateDecision, decisionFile: string): void {
  io.setOutput('verdict', decision.verdict);
  io.setOutput('outcome', decision.outcome);
  io.setOutput('decision-json', decisionFile);
}

/**
 * The gate of a mode without a comparison of its own (nightly, bisect, calibrate, a shard): decision.json
 * written to `dir`, the outputs set, the headline logged, and what the mode returns.
 */
export async function publishGate(
  io: ActionIO,
  decision: GateDecision,
  files: { dir: string; resultsFile: string; reportFile: string },
  log: (line: string) => void,
): Promise<ActionOutcome> {
  setGateOutputs(io, decision, await writeDecision(files.dir, decision));
  log(`${decision.flow}: ${decision.outcome}: ${headlineText(decision)}`);
  return outcomeOf(decision, files.resultsFile, files.reportFile);
}

/** What the mode returns: the verdict, and the step's failure when the gate fails. */
export function outcomeOf(decision: GateDecision, resultsFile: string, reportFile: string): ActionOutcome {
  return {
    decision,
    verdict: decision.verdict,
    ...(decision.failure !== undefined ? { failure: decision.failure } : {}),
    resultsFile,
    reportFile,
  };
}
