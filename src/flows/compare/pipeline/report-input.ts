/**
 * The markdown report's input from a results document, its comparison and its decision: the commits as
 * recorded, the run link as recorded (else the given one). One place, so that `pgperf compare --format
 * markdown` on an artifact prints exactly the comment the Action posted for it.
 */
import type { Decision } from '../../../core/compare/decision/decision.js';
import type { FailOn } from '../../../core/compare/decision/policy.js';
import type { RunComparison } from '../../../core/compare/comparison-types.js';
import type { JobSummaryInput } from '../../../core/report/markdown/markdown.js';
import type { RunResult } from '../../../core/results/result-types.js';
import { decideRun } from './decide-run.js';

export interface ReportInputOptions {
  /** The decision, when already made; else made here under `failOn`. */
  decision?: Decision;
  failOn?: FailOn;
  fallbackRunUrl?: string;
}

export function reportInputOf(
  result: RunResult,
  comparison: RunComparison,
  options: ReportInputOptions = {},
): JobSummaryInput {
  const source = result.source ?? {};
  const runUrl = source.runUrl ?? options.fallbackRunUrl;
  return {
    result,
    comparison,
    decision: options.decision ?? decideRun(result, comparison, options.failOn),
    base: { label: 'base', ...source.base },
    head: { label: 'head', ...source.head },
    ...(runUrl ? { runUrl } : {}),
  };
}
