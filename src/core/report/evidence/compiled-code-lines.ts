/**
 * What each head's compiled code has in common with base's, one line per head, for every report: "the same
 * compiled code" (nothing was measured) or what differs (files, and the server's functions whose code
 * changed), so a reader sees at once whether a change could have moved anything at all.
 */
import { describeCodeDifference } from '../../compare/analysis/same-code.js';
import type { RunComparison } from '../../compare/comparison-types.js';

export function compiledCodeLines(c: Pick<RunComparison, 'compiledCode' | 'baseline'>): string[] {
  return (c.compiledCode ?? []).map(
    (code) => `compiled code, ${code.head} vs ${c.baseline ?? 'base'}: ${describeCodeDifference(code)}`,
  );
}
