/**
 * What a bisection means to a gate, for the CLI's exit code and the Action's step alike (flowDecision):
 * naming the first bad commit, or finding the regression does not reproduce, is a finished answer; a
 * narrowed range that no commit decided is undecided (pending; it fails only under fail-on inconclusive, as
 * does a regression that did not reproduce); an interrupted bisection could not complete. fail-on never
 * passes everything, as for a comparison. recordBisectDecision also writes it to decision.json in the
 * bisection's directory (the CLI's; the Action's gate writes its own).
 */
import { mkdir } from 'node:fs/promises';
import { flowDecision, type GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { writeDecision } from '../compare/pipeline/decide-run.js';
import type { BisectOutcome } from '../../core/history/bisect-report.js';

/** The decision of `outcome` under `failOn`, written to decision.json in `dir`. */
export async function recordBisectDecision(
  outcome: BisectOutcome,
  failOn: FailOn,
  dir: string,
): Promise<GateDecision> {
  const decision = bisectDecision(outcome, failOn);
  await mkdir(dir, { recursive: true });
  await writeDecision(dir, decision);
  return decision;
}

/** An event with nothing to bisect (another label, an issue pgperf did not open): passed, nothing measured. */
export function bisectSkipped(reason: string, failOn: FailOn): GateDecision {
  return flowDecision({
    flow: 'bisect',
    verdict: 'inconclusive',
    failOn,
    lead: 'Nothing to bisect',
    detail: reason,
    deciding: [],
  });
}

export function bisectDecision(outcome: BisectOutcome, failOn: FailOn): GateDecision {
  const short = (sha: string) => sha.slice(0, 12);
  if (outcome.kind === 'found') {
    return flowDecision({
      flow: 'bisect',
      verdict: 'regression',
      failOn,
      lead: 'First bad commit found',
      detail: `${short(outcome.firstBad.sha)} "${outcome.firstBad.subject}" (last good ${short(outcome.lastGood.sha)})`,
      deciding: [outcome.firstBad.sha],
    });
  }
  if (outcome.kind === 'not-reproduced') {
    const verdict = outcome.judgement.verdict;
    return flowDecision({
      flow: 'bisect',
      verdict: verdict === 'inconclusive' ? 'inconclusive' : verdict,
      failOn,
      ...(failOn === 'inconclusive'
        ? { fails: 'no first bad commit named: the regression did not reproduce' }
        : {}),
      lead: 'Regression not reproduced',
      detail: `the bad end measured ${verdict} against the good end: no first bad commit to name`,
      deciding: [],
    });
  }
  const undecided = `no first bad commit named: ${short(outcome.undecided.sha)} stayed inconclusive`;
  return flowDecision({
    flow: 'bisect',
    verdict: 'inconclusive',
    failOn,
    ...(outcome.interrupted
      ? { incomplete: 'the bisection was interrupted before it named a first bad commit' }
      : {}),
    ...(failOn === 'inconclusive' ? { fails: undecided } : {}),
    pending: true,
    lead: 'No first bad commit named',
    detail: `one of ${outcome.candidates.length} commits after ${short(outcome.lastGood.sha)}; ${short(outcome.undecided.sha)} stayed inconclusive`,
    deciding: outcome.candidates.map((c) => c.sha),
  });
}
