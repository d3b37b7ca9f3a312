/**
 * Which heads a results document says run base's compiled code with base's settings
 * (src/postgres/builds/compiled-code.ts): such a head cannot perform differently, so it is never measured
 * and its cells are decided "no change (same compiled code)" (src/core/compare/analysis/same-code.ts). Measured
 * samples of such a head contradict the claim, and the document is refused on read (check-results.ts).
 */
import type { ArmInfo, CompiledCodeComparison, RunResult } from './result-types.js';

/** Settings as a stable string: the same overrides in any key order compare equal. */
export function settingsKey(settings: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(settings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The comparisons of heads that run base's compiled code with base's settings (the first arm is base).
 * `arms` need only their label and per-arm settings.
 */
export function unchangedHeads(
  compiledCode: readonly CompiledCodeComparison[] | undefined,
  arms: ReadonlyArray<{ label: string; settings: Readonly<Record<string, string>> }>,
): CompiledCodeComparison[] {
  const [base] = arms;
  if (!base || !compiledCode) return [];
  return compiledCode.filter((c) => {
    const arm = arms.find((a) => a.label === c.head);
    return (
      c.identical &&
      arm !== undefined &&
      arm !== base &&
      settingsKey(arm.settings) === settingsKey(base.settings)
    );
  });
}

/** unchangedHeads of a results document. */
export function unchangedHeadsOf(result: Pick<RunResult, 'compiledCode' | 'arms'>): CompiledCodeComparison[] {
  return unchangedHeads(
    result.compiledCode,
    result.arms.map((a: ArmInfo) => ({ label: a.label, settings: a.settingOverrides })),
  );
}
