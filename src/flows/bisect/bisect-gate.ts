/**
 * What a bisection means to a gate, for the CLI's exit code and the Action's step alike: naming the first
 * bad commit, or finding the regression does not reproduce, is a finished answer; a narrowed range that no
 * commit decided is undecided (it fails only under fail-on inconclusive); an interrupted bisection could
 * not complete. fail-on never passes everything, as for a comparison.
 */
import { EXIT_CODES } from '../../core/compare/decision.js';
import type { FailOn } from '../../core/compare/policy.js';
import type { BisectOutcome } from './run-bisection.js';

export interface BisectGate {
  exitCode: 0 | 1 | 3;
  /** Why the step fails; absent when it passes. */
  failure?: string;
}

export function bisectGate(outcome: BisectOutcome, failOn: FailOn): BisectGate {
  if (failOn === 'never') return { exitCode: EXIT_CODES.passed };
  if (outcome.kind === 'undecided' && outcome.interrupted) {
    return {
      exitCode: EXIT_CODES.incomplete,
      failure: 'the bisection was interrupted before it named a first bad commit',
    };
  }
  if (outcome.kind === 'undecided' && failOn === 'inconclusive') {
    return {
      exitCode: EXIT_CODES.failed,
      failure: `no first bad commit named: ${outcome.undecided.sha.slice(0, 12)} stayed inconclusive (fail-on: inconclusive)`,
    };
  }
  if (outcome.kind === 'not-reproduced' && failOn === 'inconclusive') {
    return {
      exitCode: EXIT_CODES.failed,
      failure: 'no first bad commit named: the regression did not reproduce (fail-on: inconclusive)',
    };
  }
  return { exitCode: EXIT_CODES.passed };
}
