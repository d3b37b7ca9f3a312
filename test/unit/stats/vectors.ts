/**
 * Typed access to test/fixtures/stats/vectors.json (SciPy 1.17.1 reference values; see its README) and the
 * assertions the statistics and comparison tests share.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

type Num = number | 'NaN' | 'Infinity' | '-Infinity';

export interface VectorCase {
  id: string;
  base: number[];
  head: number[];
  describe: Record<
    'base' | 'head',
    {
      n: number;
      mean: number;
      median: number;
      sd_sample: number;
      cv: number;
      mad_raw: number;
      q25_type7: number;
      q75_type7: number;
      min: number;
      max: number;
    }
  >;
  mann_whitney_u: {
    U_base: number;
    U_head: number;
    ties_present: boolean;
    tie_term_sum_t3_minus_t: number;
    mean_U: number;
    sd_U_tie_corrected: number;
    z_abs_with_continuity: Num;
    p_two_sided_asymptotic_no_continuity: Num;
    p_two_sided_exact: number;
    p_two_sided_exact_valid: boolean;
    p_two_sided_asymptotic_continuity: number;
    p_two_sided_permutation_exact_conditional_on_ties: number | null;
    permutation_enumerated_splits: number;
    common_language_effect_size_P_head_gt_base: number;
  };
  welch_t: {
    statistic: Num;
    df: number;
    p_two_sided: Num;
    ci95_mean_diff: [number, number];
    mean_diff_head_minus_base: number;
    se_diff: number;
  };
  welch_t_log_scale: {
    statistic: Num;
    df: number;
    p_two_sided: Num;
    ratio_of_geometric_means: number;
    ci95_ratio_of_geometric_means: [number, number];
  };
  student_t_pooled: { statistic: Num };
  hodges_lehmann: {
    shift: number;
    ci: [number, number];
    ci_order_statistic_index_1based: number;
    ci_achieved_confidence: number;
    ci_valid: boolean;
  };
  hodges_lehmann_log_ratio: {
    hl_log: number;
    pct_change: number;
    ci95_order_statistic_index_1based: number;
    ci95_achieved_confidence: number;
    ci95_ratio: [number, number];
    ci95_pct: [number, number];
    ci90_order_statistic_index_1based: number;
    ci90_achieved_confidence: number;
    ci90_pct: [number, number];
  };
  illustrative_decision: {
    alpha: number;
    p_primary: number;
    estimate_pct: number;
    verdict_delta_1pct: string;
    verdict_delta_2pct: string;
    significant_but_below_delta_1pct: boolean;
    significant_but_below_delta_2pct: boolean;
  };
  bootstrap_percentile: {
    point_ratio_of_means: number;
    monte_carlo_spread_over_50_other_seeds: Record<
      'ratio_of_means_lower' | 'ratio_of_means_upper',
      [number, number]
    >;
  };
}

interface MultipleTesting {
  p_raw: number[];
  alpha: number;
  holm: { p_adjusted: number[]; reject: boolean[] };
  benjamini_hochberg: { p_adjusted: number[]; reject: boolean[] };
}

export interface Vectors {
  cases: VectorCase[];
  multiple_testing: { sweep_8_cells: MultipleTesting; ties_and_extremes: MultipleTesting };
  distribution_tables: {
    student_t: Array<{
      df: number;
      t_ppf_0975: number;
      t_ppf_0995: number;
      p_two_sided_at_t: Record<string, number>;
    }>;
    normal_two_sided_p: Record<string, number>;
    normal_ppf: Record<string, number>;
    min_achievable_p: Array<{ n_per_arm: number; min_two_sided_exact_mwu_p: number }>;
    mwu_exact_null_counts_n5_n5: { total: number; counts_by_U: number[] };
    mwu_exact_null_counts_n3_n4: { total: number; counts_by_U: number[] };
  };
}

export const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/stats/vectors.json', import.meta.url), 'utf8'),
) as Vectors;

export function vectorCase(id: string): VectorCase {
  const found = vectors.cases.find((c) => c.id === id);
  if (!found) throw new Error(`no vector case ${id}`);
  return found;
}

/** The brief's tolerance: relative error ≤ 1e-9 against SciPy (the vectors carry 12 significant digits). */
export const REL_TOL = 1e-9;

/** Asserts |actual − expected| ≤ rel·|expected| (absolute 1e-15 at expected = 0). */
export function expectClose(actual: number, expected: number, rel = REL_TOL): void {
  const tolerance = Math.max(rel * Math.abs(expected), 1e-15);
  if (!(Math.abs(actual - expected) <= tolerance)) {
    expect.fail(`expected ${actual} to be within ${rel} (relative) of ${expected}`);
  }
}

/** No NaN anywhere in the result (±Infinity is allowed for Welch's t of zero-variance arms). */
export function expectNoNaN(value: unknown, path = 'result'): void {
  if (typeof value === 'number') {
    if (Number.isNaN(value)) expect.fail(`${path} is NaN`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => expectNoNaN(v, `${path}[${i}]`));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) expectNoNaN(v, `${path}.${k}`);
  }
}
