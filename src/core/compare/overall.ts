/**
 * Combines verdicts of cells (or of head arms) into one (statistics.md §2.8): regression if any regressed
 * ('mixed' when others improved), improvement if any improved and none regressed, no-change only when every
 * one shows no change, not-worse when every one passed and some only as not worse, inconclusive otherwise. Regression outranks everything because a gate must not wave
 * it through; the deciding ids are listed so a report can say which cells decided.
 */
import type { OverallVerdict } from './comparison-types.js';

export interface Decided {
  id: string;
  verdict: OverallVerdict;
}

export interface OverallResult {
  verdict: OverallVerdict;
  /** The ids that decided: regressed (and improved, for mixed), improved, all (no-change) or inconclusive. */
  deciding: string[];
}

export function overallVerdict(items: readonly Decided[]): OverallResult {
  const ids = (keep: (v: OverallVerdict) => boolean): string[] =>
    items.filter((i) => keep(i.verdict)).map((i) => i.id);
  const regressed = ids((v) => v === 'regression' || v === 'mixed');
  const improved = ids((v) => v === 'improvement' || v === 'mixed');
  if (regressed.length > 0 && improved.length > 0) {
    return {
      verdict: 'mixed',
      deciding: ids((v) => v === 'regression' || v === 'improvement' || v === 'mixed'),
    };
  }
  if (regressed.length > 0) return { verdict: 'regression', deciding: regressed };
  if (improved.length > 0) return { verdict: 'improvement', deciding: improved };
  if (items.length > 0 && items.every((i) => i.verdict === 'no-change')) {
    return { verdict: 'no-change', deciding: items.map((i) => i.id) };
  }
  // Every one passed, some only as not worse (their intervals reach beyond +δ): not 'no change'.
  if (items.length > 0 && items.every((i) => i.verdict === 'no-change' || i.verdict === 'not-worse')) {
    return { verdict: 'not-worse', deciding: ids((v) => v === 'not-worse') };
  }
  return { verdict: 'inconclusive', deciding: ids((v) => v === 'inconclusive') };
}

/** An arm's verdict, the cells that decided it and each workload's verdict, over its gating cells. */
export function armVerdicts<C extends { workload: string; verdict: OverallVerdict }>(
  gating: readonly C[],
  label: (cell: C) => string,
  workloads: Iterable<string>,
): OverallResult & { workloadVerdicts: Record<string, OverallVerdict> } {
  const decided = (cells: readonly C[]) =>
    overallVerdict(cells.map((c) => ({ id: label(c), verdict: c.verdict })));
  const workloadVerdicts = Object.fromEntries(
    [...new Set(workloads)].map((w) => [w, decided(gating.filter((c) => c.workload === w)).verdict]),
  );
  return { ...decided(gating), workloadVerdicts };
}
