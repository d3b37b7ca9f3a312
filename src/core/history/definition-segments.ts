/**
 * A series split where its workload's definition changed (series.ts: each point's `definition`): the
 * runs of one segment measured the same thing, the runs of two segments did not (a workload file edited
 * under the same name: another script, scale, mode or setting). Change points, regression events,
 * bisections and noise floors stay inside a segment; the history restarts at each new one.
 */
import type { SeriesPoint } from './series.js';

export interface DefinitionSegment {
  /** Index of the segment's first point in the series. */
  start: number;
  /** Index after its last point. */
  end: number;
  /** The definition id its runs measured. */
  definition: string;
}

/** The segments of a series' points (oldest first), one per run of equal definitions; none without points. */
export function definitionSegments(points: readonly Pick<SeriesPoint, 'definition'>[]): DefinitionSegment[] {
  const out: DefinitionSegment[] = [];
  for (const [i, p] of points.entries()) {
    const last = out.at(-1);
    if (last && last.definition === p.definition) last.end = i + 1;
    else out.push({ start: i, end: i + 1, definition: p.definition });
  }
  return out;
}
