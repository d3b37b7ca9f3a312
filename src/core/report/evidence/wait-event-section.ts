/**
 * "Why it changed": for every cell whose verdict is a regression or an improvement, the wait-event profile
 * and the largest counter changes per transaction of base vs head, from the diagnostics sampled during the
 * measured runs (src/postgres/wait-events.ts). Cells without diagnostics (older results, --no-diagnostics)
 * get none.
 */
import type { RunComparison } from '../../compare/comparison-types.js';
import { renderWaitEventComparison } from './wait-event-table.js';
import type { RunDiagnostics } from '../../results/diagnostics.js';
import { cellId, type RunResult } from '../../results/result-types.js';

export interface WaitEventSection {
  /** e.g. "select-only@64: regression (head vs base)". */
  title: string;
  markdown: string;
}

export function waitEventSections(result: RunResult, comparison: RunComparison): WaitEventSection[] {
  const of = (arm: string, id: string): RunDiagnostics[] =>
    result.samples
      .filter((s) => s.arm === arm && s.status === 'ok' && cellId(s) === id && s.diagnostics)
      .map((s) => s.diagnostics!);
  return comparison.comparisons.flatMap((arm) =>
    arm.cells
      .filter((cell) => cell.verdict === 'regression' || cell.verdict === 'improvement')
      .flatMap((cell) => {
        const base = of(arm.baseline, cell.id);
        const head = of(arm.head, cell.id);
        if (base.length === 0 || head.length === 0) return [];
        return [
          {
            title: `${cell.id}: ${cell.verdict} (${arm.head} vs ${arm.baseline})`,
            markdown: renderWaitEventComparison(base, head),
          },
        ];
      }),
  );
}
