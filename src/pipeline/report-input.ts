/**
 * The markdown report's input from a results document and its comparison: the commits as recorded, the run
 * link as recorded (else the given one). One place, so that `pgperf compare --format markdown` on an
 * artifact prints exactly the comment the Action posted for it.
 */
import type { RunComparison } from '../compare/types.js';
import type { JobSummaryInput } from '../report/markdown.js';
import type { RunResult } from '../results/types.js';

export function reportInputOf(
  result: RunResult,
  comparison: RunComparison,
  fallbackRunUrl?: string,
): JobSummaryInput {
  const source = result.source ?? {};
  const runUrl = source.runUrl ?? fallbackRunUrl;
  return {
    result,
    comparison,
    base: { label: 'base', ...source.base },
    head: { label: 'head', ...source.head },
    ...(runUrl ? { runUrl } : {}),
  };
}
