/**
 * The verdict of a consolidation: each machine class analysed as one comparison (Holm across all its
 * cells), a class with a missing or failed shard inconclusive, and the overall verdict over the classes
 * (a regression in any class outranks the rest, as for cells).
 */
import { overallVerdict, type OverallResult } from '../compare/overall.js';
import type { OverallVerdict, RunComparison } from '../compare/types.js';
import { analyse } from './analysis.js';
import { reportInputOf } from './report-input.js';
import type { ConsolidatedReportInput } from '../report/consolidated-markdown.js';
import type { Consolidation, MachineClass } from '../fleet/consolidate.js';

export interface JudgedClass extends MachineClass {
  comparison: RunComparison;
  /** The comparison's verdict, or inconclusive when a shard is missing or failed. */
  verdict: OverallVerdict;
  incomplete: boolean;
}

export interface JudgedConsolidation {
  planId: string;
  count: number;
  classes: JudgedClass[];
  overall: OverallResult;
}

export function judgeConsolidation(merged: Consolidation): JudgedConsolidation {
  const classes = merged.classes.map((c): JudgedClass => {
    const comparison = analyse(c.result);
    const incomplete = c.missing.length > 0 || c.failed.length > 0;
    return { ...c, comparison, incomplete, verdict: incomplete ? 'inconclusive' : comparison.verdict };
  });
  return {
    planId: merged.planId,
    count: merged.count,
    classes,
    overall: overallVerdict(classes.map((c) => ({ id: c.fingerprint, verdict: c.verdict }))),
  };
}

/** "AMD EPYC 9654, 192 CPUs": what a reader recognises a machine class by. */
export function describeMachineClass(c: Pick<MachineClass, 'facts'>): string {
  return `${c.facts.cpuModel ?? 'unknown CPU'}, ${c.facts.cpuCount ?? '?'} CPUs`;
}

/** The consolidated report's input (the Action's comment and `pgperf consolidate --format markdown`). */
export function consolidatedReportInput(
  judged: JudgedConsolidation,
  fallbackRunUrl?: string,
): ConsolidatedReportInput {
  return {
    planId: judged.planId,
    count: judged.count,
    verdict: judged.overall.verdict,
    ...(fallbackRunUrl ? { runUrl: fallbackRunUrl } : {}),
    classes: judged.classes.map((c) => ({
      fingerprint: c.fingerprint,
      description: describeMachineClass(c),
      present: c.present,
      missing: c.missing,
      failed: c.failed,
      verdict: c.verdict,
      report: reportInputOf(c.result, c.comparison, fallbackRunUrl),
    })),
  };
}
