/**
 * The comparison of a whole results document: every head arm against arms[0], per cell, with one Holm
 * family across every head arm and cell, per-workload thresholds, curve summaries, an overall verdict, and
 * warnings that say what to try next.
 *
 * The primary test is paired by default: base and head run back to back inside each round, so what a round
 * shares (a slow machine, a noisy neighbour, a drifting clock) cancels in ln(head/base) per round; the
 * signed-rank test on those log-ratios decides (notes/stats.md has the simulation behind that choice).
 * `test: 'unpaired'` restores the Mann–Whitney rank-sum test on the pooled runs.
 */
import type { RunResult } from '../../results/result-types.js';
import { adaptiveCompare, adaptiveLook } from './adaptive.js';
import { analyseLook, assemble, prepareRun, type CompareRunOptions } from './analysis.js';
import { withConfirmation } from './confirmation.js';
import { EQUIVALENCE_LEVEL } from '../defaults.js';
import type { RunComparison } from '../comparison-types.js';

export type { CompareRunOptions } from './analysis.js';

/**
 * Compares every head arm of a results document with the baseline (arms[0]); see the module comment. A
 * regressed cell that the document's confirmation block re-measured carries the block's judgement.
 */
export function compareRun(result: RunResult, options: CompareRunOptions = {}): RunComparison {
  return withConfirmation(result, mainComparison(result, options), options.value);
}

function mainComparison(result: RunResult, options: CompareRunOptions): RunComparison {
  if (options.adaptive) {
    const { plan, look } = options.adaptive;
    return adaptiveLook(result, plan, {
      ...options,
      ...(look === undefined ? {} : { look }),
      stopOnRegression: true,
    }).comparison;
  }
  if (options.sequential) {
    return adaptiveCompare(result, options, options.sequential);
  }
  const context = prepareRun(result, options);
  const cells = analyseLook(context, {
    maxRound: Number.POSITIVE_INFINITY,
    alpha: context.alpha,
    equivalenceLevel: EQUIVALENCE_LEVEL,
    frozen: new Map(),
  });
  return assemble(context, cells, null);
}
