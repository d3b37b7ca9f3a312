/**
 * The search of an attribution (docs/attribute.md): which commits of a first-parent range moved the
 * instructions per transaction, found by splitting. Count both ends; while a range's ends differ by the
 * floor or more (for any workload), count the commit in its middle and look at the two halves; a range
 * whose ends agree is not split further. Instruction counts are steady and add up along the history, so
 * every commit that moves the count by the floor or more ends as a range of one commit whose ends
 * differ, found in about log2(range) counts each; a range whose changes cancel exactly looks quiet and
 * is never split (the accounting says so: attribution-accounting.ts).
 *
 * A commit whose compiled code equals that of a range end runs that end's code: it takes the end's counts
 * without being counted. The source says so first where it can (sameSource: docs and comments only, no
 * build), else the compiled code (sameCode, against the counted commit whose counts the end carries). The range whose ends differ most is split first, so a budget
 * (`maxCounted`) spent before the end resolves the largest changes. A commit that cannot be built or
 * counted (the measure throws UnmeasuredCommit) is passed over for its neighbour nearest the middle.
 *
 * Pure: the commits, their measure and their comparison of compiled code are injected.
 */
import { judgePair, type PairJudgement, type PointCounts } from './point-judgement.js';

/** Thrown by a measure or a code comparison for a commit that cannot be built or counted. */
export class UnmeasuredCommit extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnmeasuredCommit';
  }
}

/** A commit of the range with its counts. */
export interface MeasuredPoint<C> {
  /** Position in the range (0: the `from` end). */
  index: number;
  commit: C;
  counts: PointCounts;
  /** Not counted: the same compiled code as the counted commit at this index, whose counts it took. */
  sameCodeAs?: number;
}

export interface AttributionSearchOptions {
  /** Per workload, the floor in percent: a smaller change is not split for nor named. */
  floors: Readonly<Record<string, number>>;
  /** Commits counted at most (the ends included; a commit that failed to build or count counts too). */
  maxCounted: number;
}

/** Said before each commit is counted, for progress lines. */
export interface SearchProgress<C> {
  /** Commits counted so far (tried, failures included). */
  counted: number;
  /** At most this many in all: the budget, or every commit of a shorter range. */
  atMost: number;
  /** The range being split, and the commit in its middle. */
  from: C;
  to: C;
  at: C;
}

export interface AttributionSearchDeps<C> {
  /** Counts one commit: each workload's instructions per transaction, one value per repetition. */
  measure(commit: C): Promise<PointCounts>;
  /** Whether two commits build the same compiled code (then their counts are equal). */
  sameCode(a: C, b: C): Promise<boolean>;
  /**
   * Whether the changes from `a` to `b` cannot move the instructions executed, from the source alone (docs,
   * comments): asked before sameCode, so such a commit is neither built nor counted.
   */
  sameSource?(a: C, b: C): Promise<boolean>;
  onProgress?(progress: SearchProgress<C>): void;
}

export interface AttributionSearchResult<C> {
  /** Every point with counts, in range order (both ends always). */
  points: Array<MeasuredPoint<C>>;
  /** Commits that could not be built or counted, and why. */
  unmeasured: Array<{ index: number; commit: C; reason: string }>;
  /** Commits counted (failures included): what the budget is charged. */
  counted: number;
  /** The budget ran out while some range's ends still differed. */
  exhausted: boolean;
}

/** A range between two consecutive points and each workload's judgement of its ends. */
export interface Segment<C> {
  from: MeasuredPoint<C>;
  to: MeasuredPoint<C>;
  judgements: Record<string, PairJudgement>;
}

/** The counted point whose counts `p` carries (itself when counted). */
export function rootOf<C>(p: MeasuredPoint<C>): number {
  return p.sameCodeAs ?? p.index;
}

/** The consecutive pairs of points, judged for every workload of the floors. */
export function segmentsOf<C>(
  points: ReadonlyArray<MeasuredPoint<C>>,
  floors: Readonly<Record<string, number>>,
): Array<Segment<C>> {
  const sorted = [...points].sort((a, b) => a.index - b.index);
  return sorted.slice(1).map((to, i) => {
    const from = sorted[i]!;
    const same = rootOf(from) === rootOf(to);
    const judgements = Object.fromEntries(
      Object.entries(floors).map(([w, floor]) => [w, judgePair(from.counts, to.counts, w, floor, same)]),
    );
    return { from, to, judgements };
  });
}

/** Whether a range is split: some workload's ends differ by the floor or more. */
function moved<C>(s: Segment<C>): boolean {
  return Object.values(s.judgements).some((j) => j.moved || j.call === 'changed');
}

/** The largest relative movement of a range over the workloads (which range is split first). */
function size<C>(s: Segment<C>): number {
  return Math.max(...Object.values(s.judgements).map((j) => Math.abs(j.deltaPct)));
}

/** The commit strictly inside the range nearest its middle that is not known unmeasurable. */
function middleOf<C>(s: Segment<C>, unmeasured: ReadonlyMap<number, string>): number | undefined {
  const lo = s.from.index;
  const hi = s.to.index;
  const mid = lo + Math.floor((hi - lo) / 2);
  for (let d = 0; d < hi - lo; d++) {
    for (const i of [mid - d, mid + d + 1]) {
      if (i > lo && i < hi && !unmeasured.has(i)) return i;
    }
  }
  return undefined;
}

/** Runs the search over `commits` (the `from` end first, the `to` end last). */
export async function searchAttribution<C>(
  commits: readonly C[],
  options: AttributionSearchOptions,
  deps: AttributionSearchDeps<C>,
): Promise<AttributionSearchResult<C>> {
  if (commits.length < 2)
    throw new RangeError(`an attribution needs two ends, got ${commits.length} commit(s)`);
  if (!(Number.isInteger(options.maxCounted) && options.maxCounted >= 2)) {
    throw new RangeError(
      `the budget must be at least 2 counted commits (the ends), got ${options.maxCounted}`,
    );
  }
  if (Object.keys(options.floors).length === 0) throw new RangeError('an attribution needs a workload');
  const atMost = Math.min(options.maxCounted, commits.length);
  const points = new Map<number, MeasuredPoint<C>>();
  const unmeasured = new Map<number, string>();
  let counted = 0;
  const first = 0;
  const last = commits.length - 1;
  const count = async (index: number, range: [number, number]): Promise<PointCounts> => {
    deps.onProgress?.({
      counted,
      atMost,
      from: commits[range[0]]!,
      to: commits[range[1]]!,
      at: commits[index]!,
    });
    counted += 1;
    return deps.measure(commits[index]!);
  };

  // The ends: a failure here leaves nothing to attribute, so it is thrown as it is.
  points.set(first, { index: first, commit: commits[first]!, counts: await count(first, [first, last]) });
  // Cheap first (the source), then the compiled code of a counted point (built already: no build more).
  const sameSource = (a: number, b: number) =>
    deps.sameSource ? deps.sameSource(commits[a]!, commits[b]!) : Promise.resolve(false);
  points.set(
    last,
    (await sameSource(first, last)) || (await deps.sameCode(commits[first]!, commits[last]!))
      ? { index: last, commit: commits[last]!, counts: points.get(first)!.counts, sameCodeAs: first }
      : { index: last, commit: commits[last]!, counts: await count(last, [first, last]) },
  );

  let exhausted = false;
  for (;;) {
    const open = segmentsOf([...points.values()], options.floors)
      .filter((s) => s.to.index - s.from.index > 1 && moved(s) && middleOf(s, unmeasured) !== undefined)
      .sort((a, b) => size(b) - size(a) || a.from.index - b.from.index);
    const next = open[0];
    if (!next) break;
    if (counted >= options.maxCounted) {
      exhausted = true;
      break;
    }
    const m = middleOf(next, unmeasured)!;
    const commit = commits[m]!;
    const before = counted;
    try {
      // The same code as an end: that end's counts, without counting. The source is asked first (no
      // build); the compiled code is compared with the counted commit whose counts an end carries.
      const end = (await sameSource(next.from.index, m))
        ? next.from
        : (await sameSource(m, next.to.index))
          ? next.to
          : (await deps.sameCode(commits[rootOf(next.from)]!, commit))
            ? next.from
            : (await deps.sameCode(commit, commits[rootOf(next.to)]!))
              ? next.to
              : undefined;
      if (end) {
        points.set(m, { index: m, commit, counts: end.counts, sameCodeAs: rootOf(end) });
        continue;
      }
      points.set(m, { index: m, commit, counts: await count(m, [next.from.index, next.to.index]) });
    } catch (e) {
      if (!(e instanceof UnmeasuredCommit)) throw e;
      // A commit that fails to build is charged as one counted: a run of broken builds ends with the budget.
      if (counted === before) counted += 1;
      unmeasured.set(m, e.message);
    }
  }
  return {
    points: [...points.values()].sort((a, b) => a.index - b.index),
    unmeasured: [...unmeasured].map(([index, reason]) => ({ index, commit: commits[index]!, reason })),
    counted,
    exhausted,
  };
}
