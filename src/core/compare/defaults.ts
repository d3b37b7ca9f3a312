/**
 * The decision procedure's constants, each with its source (shared docs/reference/statistics.md).
 * Changing any of them after seeing data invalidates the error rates they promise (§2.6 caveat 3).
 */

/** Family-wise false-alarm rate per comparison: P(any false regression/improvement) ≤ α (§0.4–0.5). */
export const DEFAULT_ALPHA = 0.05;

/**
 * One-sided α per cell of the adaptive design's pass question ("head is not worse than base by δ"): a pass
 * needs the one-sided 90% bound beyond −δ. 0.05 would take a median 15 rounds to pass an unchanged cell at
 * round-shared 3% noise; 0.1 takes 10, passes a change at the threshold itself 8% of the time and a −5%
 * regression never (bench/adaptive-sim.ts, docs/statistics.md). The regression question keeps DEFAULT_ALPHA.
 */
export const DEFAULT_PASS_ALPHA = 0.1;

/** Practical threshold δ in percent; 2% is Perfherder's alert threshold and resolvable at 1% noise (§2.4). */
export const DEFAULT_THRESHOLD_PCT = 2;

/** Level of the reported interval on Δ%. */
export const REPORT_LEVEL = 0.95;

/** Level of the equivalence interval: a 90% CI inside ±δ is a TOST equivalence test at 5% (§2.3). */
export const EQUIVALENCE_LEVEL = 0.9;

/** A test needs two runs per arm; fewer is reported as insufficient data, never as a verdict. */
export const MIN_RUNS_PER_ARM = 2;

/** Percentile bootstrap intervals are too narrow below ~10 runs per arm (§2.2 item 5). */
export const BOOTSTRAP_MIN_RUNS = 10;

/** A drop below the peak by more than this fraction counts as a throughput collapse: well beyond the
 * few percent of run-to-run noise, so it marks a change of the curve's shape, not noise. */
export const DEFAULT_COLLAPSE_FRACTION = 0.2;

/** Noise assumed when planning without measurements: between a quiet dedicated machine (~1%) and a
 * shared runner (3–6%) (§2.4). */
export const DEFAULT_ASSUMED_NOISE_CV_PCT = 2;

/** Target power when recommending rounds (the usual 80%; §2.4 reads the power table at this level). */
export const DEFAULT_POWER = 0.8;

/** Δ% is compared with ±δ with this slack, so a shift printed as exactly −2.00% reaches −2%. */
export const PCT_TOLERANCE = 1e-9;

/**
 * Rounds of a fixed design when nothing sets them (no --rounds, no `rounds:` in the workload, adaptive rounds
 * turned off, or a run that cannot look: a stored baseline, a shard, the nightly, a calibration, a bisection).
 * Ten, what the shipped sweeps set before their rounds became adaptive: 7 cells at 5 rounds cannot reach
 * significance after Holm (7 x 0.0079 >= 0.05), so a calibration or a fixed comparison of a shipped sweep
 * would be refused; at 10 they can.
 */
export const DEFAULT_ROUNDS = 10;

/**
 * The time budget of adaptive rounds when they are the default (no --max-rounds or --time-budget): 20
 * minutes of measurement keeps a pull request's check, with its build and counted runs, near the half hour
 * a CI job is given, and fits the whole default schedule (30 rounds) of one cell of 20-second runs. A round
 * of many cells may not fit the first look in it: the default budget never stops a run before its first
 * look (AdaptiveControl), so every default run can decide something.
 */
export const DEFAULT_TIME_BUDGET_S = 20 * 60;
