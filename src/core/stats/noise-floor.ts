import { quantileSorted } from 'simple-statistics';

/**
 * A history's noise floor: the upper Tukey fence Q3 + k·IQR of the absolute relative changes between
 * adjacent values, in percent: a change between two adjacent builds smaller than it happens without cause.
 * rustc-perf calls it the significance threshold, with k = 3 over the last 100 master commits
 * (rust-lang/rustc-perf docs/comparison-analysis.md). The fence is robust to the few real steps a history
 * holds (each is one large adjacent change, beyond Q3), so no change-point cut is needed first.
 *
 * For independent normal noise of SD σ per value the adjacent changes are half-normal with scale √2·σ
 * (Q1 0.32, Q3 1.15 of it): k = 3 puts the floor near 5.2σ, k = 1.5 near 3.4σ.
 *
 * Complexity: O(n log n). Null with fewer than 2 values or any value ≤ 0 or not finite.
 *
 * @example noiseFloorPct([100, 102, 100, 101, 100, 103, 100])?.floorPct // ≈ 4.9: Q3 2.7 + 1.5 × IQR 1.4
 */
export function noiseFloorPct(
  values: readonly number[],
  fenceIqr: number = FLOOR_FENCE_IQR,
): { floorPct: number; changes: number; q1Pct: number; q3Pct: number } | null {
  if (values.length < 2 || values.some((v) => !(Number.isFinite(v) && v > 0))) return null;
  const changes = adjacentChangesPct(values).sort((a, b) => a - b);
  const q1Pct = quantileSorted(changes, 0.25);
  const q3Pct = quantileSorted(changes, 0.75);
  return { floorPct: q3Pct + fenceIqr * (q3Pct - q1Pct), changes: changes.length, q1Pct, q3Pct };
}

/** The absolute change of each value from the one before it, in percent of the earlier one. */
export function adjacentChangesPct(values: readonly number[]): number[] {
  return values.slice(1).map((v, i) => Math.abs(100 * (v / values[i]! - 1)));
}

/**
 * Tukey's fence, Q3 + 1.5·IQR, not rustc-perf's 3·IQR: a rustc-perf comparison is one measurement per
 * artifact, and the floor is its only guard; a pgperf regression must also be significant in its own test,
 * so the floor only has to cover what that test cannot see (build and day offsets). By seeded simulation
 * through the decision code (bench/noise-floor-sim.ts, build offsets 0-5%, 400 runs per row), 1.5 keeps
 * false alarms at 0% with 30 nights and at most 2% with 12, where the configured threshold alone has 0.8-40%,
 * and finds a 10% regression 3.8-17 times as often as 3 does, which has no fewer false alarms.
 */
export const FLOOR_FENCE_IQR = 1.5;
