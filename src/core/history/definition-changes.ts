/**
 * Where the history restarts: the latest change of each workload's definition (definition-segments.ts), one
 * per workload and machine whatever its cells and metrics, for the nightly summary and the history's
 * markdown to say once.
 */
import type { HistoryAnalysis } from './history-analysis.js';
import { isCanaryWorkload } from './series.js';

/** A workload's definition changed: its series restart at the first run of the new one. */
export interface DefinitionChange {
  fingerprint: string;
  workload: string;
  /** The first run of the new definition: its date (ISO 8601), run id and commit. */
  date: string;
  runId: string;
  sha: string | null;
  /** The definition ids before and after (core/results/workload-definition.ts definitionId). */
  from: string;
  to: string;
}

/**
 * The latest definition change of each workload (per machine) whose newest segment began with one, oldest
 * first; the runner canary's workloads too, under their canary name. The earliest date among the workload's
 * series (a client count measured later starts its series later).
 */
export function latestDefinitionChanges(analysis: Pick<HistoryAnalysis, 'series'>): DefinitionChange[] {
  const byWorkload = new Map<string, DefinitionChange>();
  for (const s of analysis.series) {
    const segments = s.segments;
    if (segments.length < 2) continue;
    const current = segments.at(-1)!;
    const first = s.series.points[current.start]!;
    const { fingerprint, workload } = s.series.key;
    const change: DefinitionChange = {
      fingerprint,
      workload,
      date: first.date,
      runId: first.runId,
      sha: first.sha,
      from: segments.at(-2)!.definition,
      to: current.definition,
    };
    const key = `${fingerprint}/${workload}`;
    const known = byWorkload.get(key);
    if (!known || change.date < known.date) byWorkload.set(key, change);
  }
  return [...byWorkload.values()].sort(
    (a, b) =>
      Number(isCanaryWorkload(a.workload)) - Number(isCanaryWorkload(b.workload)) ||
      a.date.localeCompare(b.date) ||
      a.workload.localeCompare(b.workload),
  );
}
