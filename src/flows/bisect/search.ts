/**
 * The search of a bisection, as plain values: the commits from good to bad (oldest first, good at index 0,
 * bad last) and a judge that calls one commit good, bad or undecided. Binary search over the first-parent
 * line keeps the invariant "lo was judged good, hi is bad"; an undecided call stops the search with the
 * range narrowed so far (a guess would name the wrong commit with a confident face).
 */
import type { Call } from '../../core/history/bisect-report.js';

export interface Judged<J> {
  call: Call;
  /** Whatever the judge measured (verdict, delta, CI); carried into the outcome. */
  detail: J;
}

export interface TestedCommit<C, J> extends Judged<J> {
  /** Position in the commit list (0 = good). */
  index: number;
  commit: C;
  /** 1-based step of the search. */
  step: number;
}

export interface SearchState {
  /** Number of commits, good and bad included. */
  readonly size: number;
  /** The newest commit known good. */
  readonly lo: number;
  /** The oldest commit known (or assumed) bad. */
  readonly hi: number;
  /** Whether hi has been judged bad (false only before the bad commit's own test). */
  readonly badConfirmed: boolean;
  /** Set when the search stopped early: the bad commit tested good, or a commit stayed undecided. */
  readonly stopped?: { reason: 'not-reproduced' } | { reason: 'undecided'; index: number };
  /** Steps taken. */
  readonly steps: number;
}

export type SearchOutcome =
  /** The first bad commit: hi, right after lo (the last good one). */
  | { kind: 'found'; firstBad: number; lastGood: number }
  /** The bad commit itself tested good (or no worse): there is nothing to bisect. */
  | { kind: 'not-reproduced' }
  /** A commit stayed undecided: the first bad commit is in lo+1..hi, not narrowed further. */
  | { kind: 'undecided'; lastGood: number; firstBad: number; undecided: number };

/**
 * The start of a search over `size` commits. With `verifyBad` (the default) the bad commit is measured
 * first, so a regression that does not reproduce on this machine is reported as such instead of blaming
 * the last commit of the range.
 */
export function startSearch(size: number, options: { verifyBad?: boolean } = {}): SearchState {
  if (!Number.isInteger(size) || size < 2) {
    throw new RangeError(`a bisection needs a good and a bad commit (at least 2 commits), got ${size}`);
  }
  return { size, lo: 0, hi: size - 1, badConfirmed: options.verifyBad === false, steps: 0 };
}

/** The index of the commit to test next, or undefined when the search is over. */
export function nextIndex(state: SearchState): number | undefined {
  if (state.stopped) return undefined;
  if (!state.badConfirmed) return state.hi;
  if (state.hi - state.lo <= 1) return undefined;
  return state.lo + Math.floor((state.hi - state.lo) / 2);
}

/** Steps still needed at most (the estimate shown in progress lines as "step k of ~n"). */
export function stepsLeft(state: SearchState): number {
  if (state.stopped) return 0;
  const span = state.hi - state.lo;
  return (state.badConfirmed ? 0 : 1) + (span <= 1 ? 0 : Math.ceil(Math.log2(span)));
}

/** The state after the judge's call on commit `index` (which must be nextIndex(state)). */
export function afterCall(state: SearchState, index: number, call: Call): SearchState {
  const expected = nextIndex(state);
  if (index !== expected) {
    throw new RangeError(`commit ${index} judged, but the search asked for ${String(expected)}`);
  }
  const steps = state.steps + 1;
  if (call === 'undecided') return { ...state, steps, stopped: { reason: 'undecided', index } };
  if (!state.badConfirmed) {
    return call === 'bad'
      ? { ...state, steps, badConfirmed: true }
      : { ...state, steps, stopped: { reason: 'not-reproduced' } };
  }
  return call === 'bad' ? { ...state, steps, hi: index } : { ...state, steps, lo: index };
}

/** The outcome of a finished search (nextIndex undefined). */
export function outcomeOf(state: SearchState): SearchOutcome {
  if (nextIndex(state) !== undefined) throw new RangeError('the search is not finished');
  if (state.stopped?.reason === 'not-reproduced') return { kind: 'not-reproduced' };
  if (state.stopped?.reason === 'undecided') {
    return { kind: 'undecided', lastGood: state.lo, firstBad: state.hi, undecided: state.stopped.index };
  }
  return { kind: 'found', firstBad: state.hi, lastGood: state.lo };
}

export interface SearchResult<C, J> {
  outcome: SearchOutcome;
  /** Every commit judged, in the order they were tested. */
  tested: Array<TestedCommit<C, J>>;
}

/**
 * Runs the search: `judge` is called once per step, never on good (index 0, known good by definition),
 * with the step number and the estimated number of steps for progress lines.
 */
export async function bisect<C, J>(
  commits: readonly C[],
  judge: (commit: C, at: { index: number; step: number; stepsEstimate: number }) => Promise<Judged<J>>,
  options: { verifyBad?: boolean } = {},
): Promise<SearchResult<C, J>> {
  let state = startSearch(commits.length, options);
  const tested: Array<TestedCommit<C, J>> = [];
  for (let index = nextIndex(state); index !== undefined; index = nextIndex(state)) {
    const step = state.steps + 1;
    const judged = await judge(commits[index]!, {
      index,
      step,
      stepsEstimate: state.steps + stepsLeft(state),
    });
    tested.push({ index, commit: commits[index]!, step, ...judged });
    state = afterCall(state, index, judged.call);
  }
  return { outcome: outcomeOf(state), tested };
}
