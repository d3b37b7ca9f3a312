/**
 * An attribution's report as plain values, the document written as attribution.json: the commits named
 * (culprits, one entry per commit with its change per workload), how the parts add up per workload, the
 * measured points, the ranges left unresolved or unseen, the commits that could not be measured and the
 * cost. src/flows/attribute makes it from the search (attribution-search.ts) and its accounting
 * (attribution-accounting.ts); core/report/attribution renders it.
 */
import { median } from 'simple-statistics';
import type { AttributionSearchResult } from './attribution-search.js';
import type { UnresolvedWhy, WorkloadAttribution } from './attribution-accounting.js';
import type { ProfileMover } from '../results/instructions.js';

/** A commit of the range: its id and subject line. */
export interface AttributionCommit {
  sha: string;
  subject: string;
}

/** A culprit's top profile movers in one workload (culprit-movers.ts). */
export interface CulpritMovers {
  /**
   * The counted commits whose profiles were compared: the parent's (or the commit whose compiled code the
   * parent runs) and the culprit's (likewise).
   */
  base: string;
  head: string;
  /** The full differential profile, tab-separated, relative to the attribution's --out. */
  file: string;
  /** The largest movers by |head − base|, self instructions per transaction. */
  top: ProfileMover[];
}

/** One commit's change for one workload. */
export interface CulpritChange {
  workload: string;
  /** Instructions per transaction, the commit's count minus its parent's. */
  changePerTx: number;
  changePct: number;
  /** Share of the workload's end-to-end change, in percent; null when the ends agree. */
  sharePct: number | null;
  /** The functions that moved most from the parent to the commit (culprit-movers.ts). */
  movers?: CulpritMovers;
  /** Why there are no movers (no per-function profile of an end), when there are none. */
  moversMissing?: string;
}

export interface Culprit extends AttributionCommit {
  /** Position on the first-parent line (1: the first commit after `from`). */
  position: number;
  /** The workloads whose count this commit moved by the floor or more. */
  changes: CulpritChange[];
}

export interface AttributionPoint extends AttributionCommit {
  position: number;
  /** Counted, or the counts of the commit `sameCodeAs` names (the same compiled code). */
  counted: boolean;
  sameCodeAs?: string;
  /** Per workload: the median instructions per transaction and every repetition. */
  perTx: Record<string, number>;
  repetitions: Record<string, number[]>;
}

export interface AttributionRange {
  workload: string;
  from: string;
  to: string;
  /** Commits after `from` up to `to`. */
  commits: number;
  changePerTx: number;
}

/** One workload's sums: end-to-end change = culprits' sum + remainder. */
export interface WorkloadSums {
  workload: string;
  floorPct: number;
  fromPerTx: number;
  toPerTx: number;
  changePerTx: number;
  changePct: number;
  endsDiffer: boolean;
  culprits: number;
  culpritSumPerTx: number;
  remainderPerTx: number;
  /** The part of the remainder in quiet ranges (each below the floor). */
  belowFloorPerTx: number;
  belowFloorRanges: number;
  /** The part of the remainder in unresolved ranges. */
  unresolvedPerTx: number;
}

export interface AttributionCost {
  /** Builds asked for (one per commit built), and those the build cache answered. */
  builds: number;
  cacheHits: number;
  /** Commits whose counts the journal held (counted by an earlier run): not counted again. */
  reused: number;
  buildS: number;
  countS: number;
  totalS: number;
}

export interface AttributionReport {
  repo: string;
  from: AttributionCommit;
  to: AttributionCommit;
  /** Commits after `from` up to `to` on the first-parent line. */
  commits: number;
  /** The counter of the counts (cachegrind's simulated one, or the CPU's). */
  counter: string;
  culprits: Culprit[];
  workloads: WorkloadSums[];
  points: AttributionPoint[];
  unresolved: Array<AttributionRange & { why: UnresolvedWhy }>;
  /** Quiet ranges of several commits: changes inside them that cancel exactly are not seen. */
  unseen: AttributionRange[];
  unmeasured: Array<AttributionCommit & { position: number; reason: string }>;
  budget: { maxCommits: number; counted: number; exhausted: boolean };
  cost: AttributionCost;
  /** Where attribution.json and the counting runs are. */
  outDir: string;
}

export interface ReportContext {
  repo: string;
  counter: string;
  maxCommits: number;
  cost: AttributionCost;
  outDir: string;
}

/** The report of a finished search and its accounting. */
export function attributionReport<C extends AttributionCommit>(
  search: AttributionSearchResult<C>,
  accounts: ReadonlyArray<WorkloadAttribution<C>>,
  ctx: ReportContext,
): AttributionReport {
  const commit = (c: C): AttributionCommit => ({ sha: c.sha, subject: c.subject });
  const byIndex = new Map(search.points.map((p) => [p.index, p]));
  const culprits = new Map<number, Culprit>();
  for (const a of accounts) {
    for (const c of a.culprits) {
      const entry = culprits.get(c.index) ?? { ...commit(c.commit), position: c.index, changes: [] };
      entry.changes.push({
        workload: a.workload,
        changePerTx: c.deltaPerTx,
        changePct: c.deltaPct,
        sharePct: c.sharePct,
      });
      culprits.set(c.index, entry);
    }
  }
  const range = (workload: string, r: WorkloadAttribution<C>['unseen'][number]): AttributionRange => ({
    workload,
    from: r.from.sha,
    to: r.to.sha,
    commits: r.commits,
    changePerTx: r.deltaPerTx,
  });
  const first = search.points[0]!;
  const last = search.points.at(-1)!;
  return {
    repo: ctx.repo,
    from: commit(first.commit),
    to: commit(last.commit),
    commits: last.index - first.index,
    counter: ctx.counter,
    culprits: [...culprits.values()].sort((a, b) => a.position - b.position),
    workloads: accounts.map((a) => ({
      workload: a.workload,
      floorPct: a.floorPct,
      fromPerTx: a.fromPerTx,
      toPerTx: a.toPerTx,
      changePerTx: a.totalPerTx,
      changePct: a.totalPct,
      endsDiffer: a.endsDiffer,
      culprits: a.culprits.length,
      culpritSumPerTx: a.culpritSumPerTx,
      remainderPerTx: a.remainderPerTx,
      belowFloorPerTx: a.belowFloor.perTx,
      belowFloorRanges: a.belowFloor.ranges,
      unresolvedPerTx: a.unresolved.reduce((s, u) => s + u.deltaPerTx, 0),
    })),
    points: search.points.map((p) => ({
      ...commit(p.commit),
      position: p.index,
      counted: p.sameCodeAs === undefined,
      ...(p.sameCodeAs !== undefined ? { sameCodeAs: byIndex.get(p.sameCodeAs)!.commit.sha } : {}),
      perTx: Object.fromEntries(Object.entries(p.counts).map(([w, v]) => [w, median([...v])])),
      repetitions: Object.fromEntries(Object.entries(p.counts).map(([w, v]) => [w, [...v]])),
    })),
    unresolved: accounts.flatMap((a) => a.unresolved.map((u) => ({ ...range(a.workload, u), why: u.why }))),
    unseen: accounts.flatMap((a) => a.unseen.map((u) => range(a.workload, u))),
    unmeasured: search.unmeasured.map((u) => ({ ...commit(u.commit), position: u.index, reason: u.reason })),
    budget: { maxCommits: ctx.maxCommits, counted: search.counted, exhausted: search.exhausted },
    cost: ctx.cost,
    outDir: ctx.outDir,
  };
}
