/**
 * Each culprit's top profile movers (docs/attribute.md#profile-movers): the functions whose self
 * instructions per transaction moved most from the culprit's parent to the culprit, per workload it
 * moved. The two ends are the counted commits whose counts the parent and the culprit carry (a commit
 * that runs another's compiled code was not counted, and has that commit's profile). The differential
 * profiles are computed where the profile files are read (src/flows/attribute/culprit-profiles.ts); here
 * which profiles to compare, and the report with their movers.
 */
import type { ProfileMover } from '../results/instructions.js';
import type { AttributionReport, CulpritMovers } from './attribution-report.js';

/** How many movers attribution.json keeps per culprit and workload (the full table is in `file`). */
export const CULPRIT_MOVERS = 5;

/** Below this, a function's change in self instructions per transaction shows as 0: it did not move. */
export const MIN_MOVER_IR_PER_TX = 0.5;

/** The largest movers of a differential profile sorted by |delta| (diffCosts), those that moved only. */
export function topMovers(rows: readonly ProfileMover[]): ProfileMover[] {
  return rows.filter((r) => Math.abs(r.deltaIrPerTx) >= MIN_MOVER_IR_PER_TX).slice(0, CULPRIT_MOVERS);
}

/** One culprit's change in one workload, and the counted commits whose profiles explain it. */
export interface CulpritProfileEnds {
  position: number;
  sha: string;
  workload: string;
  base: string;
  head: string;
}

/** Per culprit and workload it moved: the counted commits to compare (parent side, culprit side). */
export function culpritProfileEnds(r: Pick<AttributionReport, 'culprits' | 'points'>): CulpritProfileEnds[] {
  const at = new Map(r.points.map((p) => [p.position, p]));
  const counted = (position: number): string | undefined => {
    const p = at.get(position);
    return p === undefined ? undefined : (p.sameCodeAs ?? p.sha);
  };
  return r.culprits.flatMap((c) => {
    const base = counted(c.position - 1);
    const head = counted(c.position);
    // A culprit is a measured range of one commit: both ends are points.
    if (base === undefined || head === undefined) return [];
    return c.changes.map((x) => ({ position: c.position, sha: c.sha, workload: x.workload, base, head }));
  });
}

/** What was found for one culprit's change: its movers, or why there are none. */
export type MoversFound = { movers: CulpritMovers } | { missing: string };

/** The report with each culprit change's movers (or why they are missing), keyed `${sha} ${workload}`. */
export function withMovers(r: AttributionReport, found: ReadonlyMap<string, MoversFound>): AttributionReport {
  return {
    ...r,
    culprits: r.culprits.map((c) => ({
      ...c,
      changes: c.changes.map((x) => {
        const f = found.get(moversKey(c.sha, x.workload));
        if (!f) return x;
        return 'movers' in f ? { ...x, movers: f.movers } : { ...x, moversMissing: f.missing };
      }),
    })),
  };
}

export const moversKey = (sha: string, workload: string) => `${sha} ${workload}`;
