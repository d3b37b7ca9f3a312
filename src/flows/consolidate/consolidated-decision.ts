/**
 * The decision of a consolidation: each machine class analysed as one comparison (Holm across all its
 * cells), and one decision over the classes (decide() with a part per class): a regression in any class
 * outranks the rest, as for cells, and a missing or failed shard leaves it incomplete.
 */
import type { Decision } from '../../core/compare/decision/decision.js';
import { decide } from '../../core/compare/decision/decision.js';
import {
  DEFAULT_FAIL_ON,
  gatePolicyOf,
  type FailOn,
  type GatePolicy,
} from '../../core/compare/decision/policy.js';
import type { RunComparison } from '../../core/compare/comparison-types.js';
import { analyse } from '../../core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../compare/pipeline/decide-run.js';
import { reportInputOf } from '../compare/pipeline/report-input.js';
import type { ConsolidatedReportInput } from '../../core/report/markdown/consolidated-markdown.js';
import type { Consolidation, MachineClass } from './shard-merge.js';
import { describeMachineClass } from '../../core/report/terminal/consolidated-text.js';

export interface JudgedClass extends MachineClass {
  comparison: RunComparison;
  /** This class alone (its section of the report). */
  decision: Decision;
  incomplete: boolean;
}

export interface JudgedConsolidation {
  planId: string;
  count: number;
  classes: JudgedClass[];
  /** Over every class: what the status, the step and the headline say. */
  decision: Decision;
}

export function judgeConsolidation(
  merged: Consolidation,
  failOn: FailOn = DEFAULT_FAIL_ON,
  accepted?: GatePolicy['accepted'],
): JudgedConsolidation {
  const classes = merged.classes.map((c): JudgedClass => {
    const comparison = analyse(c.result);
    const incomplete = c.missing.length > 0 || c.failed.length > 0;
    return { ...c, comparison, incomplete, decision: decideRun(c.result, comparison, failOn, accepted) };
  });
  const gaps = classes.flatMap((c) => [
    ...c.missing.map((i) => `shard ${i} of ${merged.count} missing`),
    ...c.failed.map((i) => `shard ${i} of ${merged.count} failed`),
  ]);
  const workloads = Object.assign({}, ...classes.map((c) => c.result.workloads)) as Record<string, unknown>;
  const decision = decide(
    classes.map((c) => ({ name: c.fingerprint, comparison: c.comparison })),
    { ...gatePolicyOf(workloads, failOn), ...(accepted ? { accepted } : {}) },
    gaps.length > 0 ? { complete: false, why: gaps.join(', ') } : { complete: true },
  );
  return { planId: merged.planId, count: merged.count, classes, decision };
}

/** "AMD EPYC 9654, 192 CPUs": what a reader recognises a machine class by. */
/** The consolidated report's input (the Action's comment and `pgperf consolidate --format markdown`). */
export function consolidatedReportInput(
  judged: JudgedConsolidation,
  fallbackRunUrl?: string,
): ConsolidatedReportInput {
  return {
    planId: judged.planId,
    count: judged.count,
    decision: judged.decision,
    ...(fallbackRunUrl ? { runUrl: fallbackRunUrl } : {}),
    classes: judged.classes.map((c) => ({
      fingerprint: c.fingerprint,
      description: describeMachineClass(c),
      present: c.present,
      missing: c.missing,
      failed: c.failed,
      verdict: c.decision.verdict,
      report: reportInputOf(c.result, c.comparison, { decision: c.decision, fallbackRunUrl }),
    })),
  };
}
