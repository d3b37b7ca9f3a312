/**
 * How the parts of an attribution add up, per workload. The measured points cut the range into
 * consecutive ranges; each range's change is the difference of its ends' medians, so the changes of all
 * of them add up exactly to the change from one end to the other. Each range is one of:
 *
 * - a **culprit**: one commit whose count differs from its parent's by the floor or more, steadily;
 * - **quiet**: the ends agree within the floor. Its change (below the floor) is part of the remainder, and
 *   a quiet range of several commits may hide changes that cancel exactly (one commit adds what another
 *   removes): the search cannot see them, and says where they could be (`unseen`);
 * - **unresolved**: not split, and its ends differ or cannot be told apart: the budget ran out (`budget`),
 *   no commit inside could be built or counted (`unmeasured`), or the counts are not steady enough
 *   (`unsteady`). Its change is part of the remainder too.
 *
 * So: end-to-end change = sum of the culprits' changes + remainder (quiet + unresolved ranges).
 */
import { perTxOf } from './point-judgement.js';
import { segmentsOf, type AttributionSearchResult, type MeasuredPoint } from './attribution-search.js';

export type UnresolvedWhy = 'budget' | 'unmeasured' | 'unsteady';

export interface AttributedChange<C> {
  /** Position of the commit in the range (1: the first commit after `from`). */
  index: number;
  commit: C;
  /** Instructions per transaction, this commit's count minus its parent's. */
  deltaPerTx: number;
  /** The same in percent of the parent's count. */
  deltaPct: number;
  /** Share of the end-to-end change, in percent; null when the ends agree (a share of nothing). */
  sharePct: number | null;
}

export interface RangePart<C> {
  from: C;
  to: C;
  fromIndex: number;
  toIndex: number;
  /** Commits in the range (after `from`, up to `to`). */
  commits: number;
  deltaPerTx: number;
}

export interface WorkloadAttribution<C> {
  workload: string;
  floorPct: number;
  fromPerTx: number;
  toPerTx: number;
  /** toPerTx - fromPerTx. */
  totalPerTx: number;
  totalPct: number;
  /** Whether the ends differ by the floor or more. */
  endsDiffer: boolean;
  /** The commits named, in range order. */
  culprits: Array<AttributedChange<C>>;
  culpritSumPerTx: number;
  /** totalPerTx - culpritSumPerTx: the quiet ranges' changes plus the unresolved ones'. */
  remainderPerTx: number;
  /** The changes of the quiet ranges (each below the floor), added up, and how many. */
  belowFloor: { perTx: number; ranges: number };
  unresolved: Array<RangePart<C> & { why: UnresolvedWhy }>;
  /** Quiet ranges of more than one commit: changes that cancel exactly inside them are not seen. */
  unseen: Array<RangePart<C>>;
}

/** The accounting of every workload of the floors, from the search's points. */
export function accountAttribution<C>(
  search: Pick<AttributionSearchResult<C>, 'points' | 'unmeasured'>,
  floors: Readonly<Record<string, number>>,
): Array<WorkloadAttribution<C>> {
  const segments = segmentsOf(search.points, floors);
  const unmeasured = new Set(search.unmeasured.map((u) => u.index));
  const first = search.points[0]!;
  const last = search.points.at(-1)!;
  return Object.entries(floors).map(([workload, floorPct]) => {
    const fromPerTx = perTxOf(first.counts, workload);
    const toPerTx = perTxOf(last.counts, workload);
    const totalPerTx = toPerTx - fromPerTx;
    const totalPct = (100 * totalPerTx) / fromPerTx;
    const endsDiffer = Math.abs(totalPct) >= floorPct;
    const share = (d: number) => (endsDiffer && totalPerTx !== 0 ? (100 * d) / totalPerTx : null);
    const part = (from: MeasuredPoint<C>, to: MeasuredPoint<C>, deltaPerTx: number): RangePart<C> => ({
      from: from.commit,
      to: to.commit,
      fromIndex: from.index,
      toIndex: to.index,
      commits: to.index - from.index,
      deltaPerTx,
    });
    const out: WorkloadAttribution<C> = {
      workload,
      floorPct,
      fromPerTx,
      toPerTx,
      totalPerTx,
      totalPct,
      endsDiffer,
      culprits: [],
      culpritSumPerTx: 0,
      remainderPerTx: 0,
      belowFloor: { perTx: 0, ranges: 0 },
      unresolved: [],
      unseen: [],
    };
    for (const s of segments) {
      const j = s.judgements[workload]!;
      const length = s.to.index - s.from.index;
      if (length === 1 && j.call === 'changed') {
        out.culprits.push({
          index: s.to.index,
          commit: s.to.commit,
          deltaPerTx: j.deltaPerTx,
          deltaPct: j.deltaPct,
          sharePct: share(j.deltaPerTx),
        });
        out.culpritSumPerTx += j.deltaPerTx;
      } else if (j.call === 'quiet') {
        out.belowFloor.perTx += j.deltaPerTx;
        out.belowFloor.ranges += 1;
        if (length > 1) out.unseen.push(part(s.from, s.to, j.deltaPerTx));
      } else {
        const inside = Array.from({ length: length - 1 }, (_, k) => s.from.index + 1 + k);
        const why: UnresolvedWhy =
          length === 1 || !j.moved
            ? 'unsteady'
            : inside.every((i) => unmeasured.has(i))
              ? 'unmeasured'
              : 'budget';
        out.unresolved.push({ ...part(s.from, s.to, j.deltaPerTx), why });
      }
    }
    out.remainderPerTx = totalPerTx - out.culpritSumPerTx;
    return out;
  });
}
