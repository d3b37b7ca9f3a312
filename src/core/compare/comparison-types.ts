/**
 * The comparison as data: statistics, verdicts and the reasons for them. Renderers (src/core/report) turn it
 * into text or markdown; nothing here formats for a terminal.
 *
 * Sign convention, everywhere: Δ% = 100·(e^HL − 1) where HL is the Hodges–Lehmann shift of ln(head) −
 * ln(base), so Δ% > 0 means head's value is higher. Whether higher is better comes from the metric
 * (METRICS[metric].better): for TPS a Δ% ≤ −δ can be a regression, for latency a Δ% ≥ +δ can.
 */
import type { RunnerGateRecord } from '../results/calibration-record.js';
import type { MetricName } from '../results/metrics.js';
import type { MannWhitneyMethod } from '../stats/mann-whitney.js';
import type { AnswerCost, CompiledCodeComparison, Verdict, PrimaryTest } from '../results/result-types.js';
import type { PlansRecord } from '../results/plans.js';
export type { Verdict, PrimaryTest };

/** A verdict over several cells or arms; 'mixed' when some regressed and others improved. */
export type OverallVerdict = Verdict | 'mixed';

/** Which direction of the metric is better. */
export type Better = 'higher' | 'lower';

/** Why a cell got its verdict. */
export type ReasonCode =
  /** regression/improvement: p_adj < α and |Δ%| ≥ δ in that direction. */
  | 'significant-beyond-threshold'
  /** no-change: the 90% CI lies inside (−δ, +δ). */
  | 'ci-inside-threshold'
  /** not-worse: the one-sided bound on the worse side lies beyond −δ (non-inferiority), the CI reaches +δ. */
  | 'not-worse-than-threshold'
  /** p_adj < α but |Δ%| < δ: real but too small to matter (with no-change or inconclusive). */
  | 'significant-below-threshold'
  /** inconclusive: the 90% CI reaches beyond ±δ, more runs would narrow it. */
  | 'ci-wider-than-threshold'
  /** inconclusive: with these sizes the exact p can never get below α after Holm. */
  | 'too-few-runs'
  /** inconclusive: so few runs that the interval cannot reach the requested confidence. */
  | 'ci-level-not-reached'
  /** inconclusive: fewer than two usable runs in an arm (empty, failed, invalid or missing). */
  | 'insufficient-data'
  /**
   * inconclusive, but the equivalence interval lies wholly on the adverse side of −δ (beyond +δ for
   * lower-is-better metrics): a regression is likely, the design cannot certify it yet. The gate fails it.
   */
  | 'likely-regression'
  /** inconclusive: the stored baseline's sentinel found the machine drifted, so no stored sample decides. */
  | 'baseline-drifted'
  /** no-change without a measurement: head runs base's compiled code with base's settings (same-code.ts). */
  | 'same-compiled-code'
  /**
   * no-change without a measurement: none of the functions whose code head changed ran in the workload's
   * counted runs, and nothing else differs (unexecuted-code.ts).
   */
  | 'changed-code-not-executed'
  /** instructions, regression/improvement: Δ beyond ±δ and every repetition of one arm beyond every one of the other. */
  | 'counts-separated'
  /** instructions, no-change: Δ widened by half the repetitions' spread lies inside ±δ. */
  | 'counts-inside-threshold'
  /** instructions, inconclusive: the repetitions overlap, or their spread reaches ±δ. */
  | 'counts-not-steady'
  /**
   * no-change by steady evidence (steady-evidence.ts): CPU work per transaction unchanged, the metric shows no
   * regression, and the client count is one the steady-pass policy lets steady evidence decide.
   */
  | 'steady-unchanged'
  /**
   * inconclusive: significant and beyond δ, but inside the noise floor of the runner's nightly history
   * (history-threshold.ts): adjacent nightly builds differ this much without cause.
   */
  | 'inside-noise-floor'
  /** memory, regression/improvement: the medians moved beyond both memory floors (memory-verdict.ts). */
  | 'memory-beyond-floor'
  /**
   * inconclusive on purpose: the workload's instruction counts decided a regression, so only its memory
   * rounds ran (counts-decided.ts).
   */
  | 'counts-decided';

/** Diagnostics that do not decide the verdict but qualify it. */
export type NoteCode =
  | 'failed-runs-excluded'
  | 'invalid-values-excluded'
  /** Ties in the data: p is exact conditional on them, but the interval's level is approximate. */
  | 'ties-approximate-ci'
  /** Welch's t on logs and Mann–Whitney disagree at α: outliers or bimodality. */
  | 'welch-disagrees'
  /** Rounds where only one arm has a usable run were left out of the paired analysis. */
  | 'unpaired-rounds-dropped'
  /** Too few complete rounds for the paired test: the unpaired Mann–Whitney test decided instead. */
  | 'unpaired-fallback'
  /** The cell's A/A-style spread exceeds its threshold: unstable on this runner (noisy-cell.ts). */
  | 'noisy-cell'
  /** The noise floor of the cell's nightly history and what it did to the verdict (history-threshold.ts). */
  | 'threshold-from-history'
  /** Its nightly history's noise floor is over twice the configured threshold (history-threshold.ts). */
  | 'noisy-history';

export interface Reason<C extends string = ReasonCode> {
  code: C;
  message: string;
}

export type Note = Reason<NoteCode>;

export interface ArmSummary {
  /** Usable runs (finite, positive values) that entered the statistics. */
  n: number;
  /** Runs that failed (excluded, counted). */
  failed: number;
  /** Values excluded as non-finite or non-positive. */
  invalid: number;
  median: number | null;
  /** Sample standard deviation / mean, in percent; null below two runs. */
  cvPct: number | null;
}

/** A confidence interval on Δ%. */
export interface DeltaInterval {
  /** Requested level, e.g. 0.95. */
  level: number;
  /** Level the order-statistic interval actually has (see shiftCiIndex); report it. */
  achievedLevel: number;
  lowerPct: number;
  upperPct: number;
}

/** Welch's t on ln values, a diagnostic (never decides the verdict). */
export interface WelchDiagnostic {
  /** Positive when head's geometric mean is higher; ±Infinity for zero-variance arms (null in JSON). */
  t: number;
  /** Welch–Satterthwaite df, unrounded. */
  df: number;
  p: number;
  /** 95% CI of the ratio of geometric means, as a change in percent. */
  ci95: DeltaInterval;
}

export interface BootstrapDiagnostic {
  /** 100·(mean(head)/mean(base) − 1). */
  ratioOfMeansPct: number;
  ci95: DeltaInterval;
  seed: number;
  resamples: number;
}

/** The one-sample t on the per-round log-ratios, a diagnostic beside the signed-rank test. */
export interface PairedTDiagnostic {
  t: number;
  df: number;
  p: number;
  /** 95% CI of the geometric mean ratio, as a change in percent. */
  ci95: DeltaInterval;
}

/**
 * The test fields of a cell judged by a rule of its own rather than a test on its rounds (instruction
 * counts, memory beyond its floors): no interval, no p, no diagnostic.
 */
export const UNTESTED = {
  pairs: null,
  ci95: null,
  ci90: null,
  ciEquivalence: null,
  p: null,
  method: null,
  minAchievableP: null,
  welch: null,
  pairedT: null,
  bootstrap: null,
  aaSpreadPct: null,
  pAdjusted: null,
  familySize: 1,
} as const;

/** The statistics of one base/head comparison, before any verdict. */
export interface ShiftStatistics {
  test: PrimaryTest;
  /** Rounds where both arms have a usable run (the signed-rank test's n); null for unpaired data. */
  pairs: number | null;
  base: ArmSummary;
  head: ArmSummary;
  /** Hodges–Lehmann change head vs base in percent (see the sign convention above); null without data. */
  deltaPct: number | null;
  ci95: DeltaInterval | null;
  ci90: DeltaInterval | null;
  /**
   * The interval the equivalence (no-change) decision uses: the 90% CI in a single analysis (TOST at 5%),
   * the 1 − 2·α_k interval at look k of an adaptive design (TOST at the look's level).
   */
  ciEquivalence: DeltaInterval | null;
  /** Unadjusted two-sided p of the primary test. */
  p: number | null;
  method: MannWhitneyMethod | null;
  /** The smallest p the exact test can give with these sizes. */
  minAchievableP: number | null;
  welch: WelchDiagnostic | null;
  /** Paired t on the log-ratios (diagnostic; signed-rank cells only). */
  pairedT: PairedTDiagnostic | null;
  bootstrap: BootstrapDiagnostic | null;
  /** Why no test could be run (fewer than two usable runs in an arm); null when tested. */
  unusable: string | null;
  /**
   * The A/A-style spread in percent, what base against itself would show per round: paired, the robust SD
   * (1.4826·MAD) of the per-round ln(head/base), which a constant change does not widen; unpaired, √2 × the
   * robust run-to-run spread of base. Null below MIN_NOISE_ROUNDS values (src/core/compare/noisy-cell.ts marks cells by it).
   */
  aaSpreadPct: number | null;
  notes: Note[];
}

export interface SampleComparison extends ShiftStatistics {
  better: Better;
  /** The α the verdict used (the per-look α in a sequential design). */
  alpha: number;
  thresholdPct: number;
  /** Holm-adjusted p over the family (equal to p for a single comparison). */
  pAdjusted: number | null;
  /** Number of tested cells Holm adjusted over. */
  familySize: number;
  verdict: Verdict;
  /** Why the verdict is what it is; never empty. */
  reasons: Reason[];
}

export interface CellComparison extends SampleComparison {
  /** cellId(): "workload@clients". */
  id: string;
  workload: string;
  clients: number;
  /** The metric this hypothesis compares (the comparison's metric, or another metric its workload gates on). */
  metric: MetricName;
  /**
   * Set when the cell lies in a collapse region of base's curve, where runs are often bimodal: its verdict is
   * reported but does not enter the arm's or the run's verdict, nor the gate (head's own collapse gates).
   */
  unstable?: UnstableCell;
  /**
   * Set on a regressed cell that a confirmation block re-measured (src/core/compare/analysis/confirmation.ts): a
   * regression that does not confirm is 'unconfirmed', neither a pass nor a fail.
   */
  confirmation?: CellConfirmation;
}

/** What a confirmation block said about one regressed cell (src/core/compare/analysis/confirmation.ts judges it). */
export interface CellConfirmation {
  confirmed: boolean;
  /** Rounds of the block with a usable run in both arms. */
  pairs: number;
  /** Hodges–Lehmann change in the block; null without pairs. */
  deltaPct: number | null;
  /** The one-sided interval [lower, upper] at 1 − 2α (its bound on the better side decides). */
  interval: { lowerPct: number; upperPct: number; achievedLevel: number } | null;
  /** The α the block tests at (the comparison's overall α). */
  alpha: number;
  message: string;
}

export interface UnstableCell {
  /** The arms whose curve has a collapse region at this client count (base). */
  arms: string[];
  message: string;
}

export interface CurveSummary {
  arm: string;
  /** Median TPS per client count, ascending clients. */
  points: Array<{ clients: number; medianTps: number }>;
  peakTps: number;
  peakClients: number;
  /** Where the curve stops scaling (≤ peakClients; see src/core/compare/analysis/curve.ts for the definition). */
  kneeClients: number;
  /**
   * First client count, after the curve first reached (1 − fraction)·peak, whose median TPS is below it again;
   * null if none.
   */
  collapseClients: number | null;
  /** Such collapses that a larger client count recovers from; cells there are unstable. */
  collapseRegions: CollapseRegion[];
}

/** Consecutive client counts more than the collapse fraction below the peak, between two above it. */
export interface CollapseRegion {
  clients: number[];
  /** The lowest median TPS inside the region. */
  lowestTps: number;
  /** The first larger client count whose median is back within the fraction of the peak. */
  recoveredAt: number;
}

export interface CurveComparison {
  workload: string;
  collapseFraction: number;
  base: CurveSummary;
  head: CurveSummary;
  /** 100·(head peak / base peak − 1). */
  peakDeltaPct: number;
  /**
   * Medians within this many percent of each other are a plateau (the larger of δ and two standard errors of
   * a difference of medians at the measured noise): peakMoved needs each arm's peak outside
   * the other arm's plateau, collapseMoved a client count clearly collapsed in one arm and clearly not in
   * the other (beyond the tolerance), so run-to-run noise on a flat curve does not flip them.
   */
  tolerancePct: number;
  peakMoved: boolean;
  collapseMoved: boolean;
}

/** One head arm against the baseline, Holm-adjusted across all its cells. */
export interface ArmComparison {
  baseline: string;
  head: string;
  verdict: OverallVerdict;
  /** Each workload's verdict over its stable cells and every metric it gates on (workload name -> verdict). */
  workloadVerdicts: Record<string, OverallVerdict>;
  /** Ids of the cells that decided the verdict (the regressed ones for 'regression', …); never unstable ones. */
  decidingCells: string[];
  /** Ids of the cells flagged unstable (collapse regions): reported, left out of the verdict and the gate. */
  unstableCells: string[];
  /** Inconclusive cells whose equivalence interval lies wholly beyond −δ (reason 'likely-regression'). */
  likelyRegressionCells: string[];
  /** Tested cells of every head arm that Holm adjusted over (one family across arms and cells). */
  familySize: number;
  /** The cells compared on the comparison's metric (RunComparison.metric). */
  cells: CellComparison[];
  /**
   * The other metrics workloads gate on (`metrics: [tps, p99]`): one hypothesis per cell and metric, in the
   * same Holm family as `cells`, and part of the verdict; empty when every workload gates on one metric.
   */
  otherMetricCells: CellComparison[];
  curves: CurveComparison[];
}

export interface SequentialLook {
  /** Cumulative rounds at each look, declared before the first look. */
  schedule: number[];
  /** 1-based index of this look. */
  look: number;
  looks: number;
  /** The nominal α this look tests at: the α spent at this look (see SequentialDesign). */
  perLookAlpha: number;
  /** The α-spending function of the design (absent in comparisons made before it was recorded). */
  spending?: 'obrien-fleming' | 'pocock';
}

export interface RunComparison {
  /** The metric of every arm's `cells` (the first-listed metric a report shows). */
  metric: MetricName;
  /** Every metric some cell gates on, `metric` first. */
  gatedMetrics: MetricName[];
  better: Better;
  /** Overall false-alarm rate the design controls. */
  alpha: number;
  /** α each verdict was tested at: alpha, or the per-look α in a sequential design. */
  testAlpha: number;
  /** Default practical threshold; workloads may override it (see each cell's thresholdPct). */
  thresholdPct: number;
  /**
   * Set when the threshold was asked for this analysis and applies to every workload (`pgperf compare
   * --threshold`): the workloads whose own recorded threshold it set aside, with that threshold.
   */
  thresholdForAll?: { setAside: Array<{ workload: string; thresholdPct: number }> };
  baseline: string | null;
  verdict: OverallVerdict;
  /** Head arms that decided the verdict. */
  decidingArms: string[];
  comparisons: ArmComparison[];
  sequential: SequentialLook | null;
  /** The primary test the cells used (signed-rank unless a cell had to fall back; see each cell's test). */
  primaryTest: PrimaryTest;
  /**
   * "head:cell" ids of inconclusive cells where a regression is likely but not certified: a gate must fail
   * these like a regression (the overall verdict stays 'inconclusive' so it is not reported as proven).
   */
  likelyRegressions: string[];
  /** What to look at or try next (partial results, failed runs, too few rounds, drift, …). */
  warnings: string[];
  /** Each head's compiled code against base's, when the run compared them (same-code.ts). */
  compiledCode?: CompiledCodeComparison[];
  /** The statements' plans per arm, when the run took them (the plan phase; core/report/evidence/plan-section.ts). */
  plans?: PlansRecord;
  /** What the answer cost, when the run recorded it (core/results/answer-cost.ts). */
  cost?: AnswerCost;
  /** The runner's measured false alarms and drills caught, when it was calibrated (core/results/calibration-record.ts). */
  gateRecord?: RunnerGateRecord;
}
