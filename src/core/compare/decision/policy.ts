/**
 * The gate policy: what fails the step (`fail-on`), with the α and threshold ranges it is judged at. One
 * definition of every default and valid range, read by the CLI flags, the Action inputs and the workload
 * schema alike, so no adapter can accept what another refuses.
 */
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT } from '../defaults.js';

/** What fails the gate: a regression (certified or likely), also an undecided cell, or nothing. */
export const FAIL_ON = ['regression', 'inconclusive', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];
export const DEFAULT_FAIL_ON: FailOn = 'regression';

/** One line per fail-on value, for help texts and the README. */
export const FAIL_ON_MEANING: Record<FailOn, string> = {
  regression: 'a certified or likely regression fails the gate',
  inconclusive: 'a regression, or a cell the data cannot decide, fails the gate',
  never: 'report only: the gate always passes (a run that could not complete still says so)',
};

export { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT };

/** α above 0.5 would call a coin toss significant; the Holm family divides it further. */
export const ALPHA_RANGE = { above: 0, below: 0.5 } as const;
/** A threshold is a percentage change: above 0, below 100. */
export const THRESHOLD_RANGE = { above: 0, below: 100 } as const;

/** Why `value` is no α, e.g. "must be a number between 0 and 0.5 (exclusive, e.g. 0.05), got '1'"; else undefined. */
export function alphaProblem(value: string): string | undefined {
  return rangeProblem(value, ALPHA_RANGE, String(DEFAULT_ALPHA));
}

/** Why `value` is no threshold percentage ("2" and "2%" are both 2); else undefined. */
export function thresholdProblem(value: string): string | undefined {
  return rangeProblem(value.replace(/%$/, ''), THRESHOLD_RANGE, String(DEFAULT_THRESHOLD_PCT));
}

export function parseFailOn(value: string): FailOn | undefined {
  return (FAIL_ON as readonly string[]).includes(value) ? (value as FailOn) : undefined;
}

function rangeProblem(
  value: string,
  range: { above: number; below: number },
  example: string,
): string | undefined {
  const n = Number(value);
  if (value.trim() !== '' && n > range.above && n < range.below) return undefined;
  return `must be a number between ${range.above} and ${range.below} (exclusive, e.g. ${example}), got '${value}'`;
}

/** A workload's own policy (workload file fields `threshold`, `metrics`, `failOn`), where it sets one. */
export interface WorkloadPolicy {
  failOn?: FailOn;
}

/** The policy a decision is made under: the run's fail-on, and each workload's override. */
export interface GatePolicy {
  failOn: FailOn;
  /** Workload name -> its own policy (absent: the run's). */
  workloads: Record<string, WorkloadPolicy>;
  /** Regressions maintainers accepted (`/pgperf accept`), and the head commit this decision is about. */
  accepted?: { headSha: string; acceptances: readonly Acceptance[] };
}

/**
 * The policy of a results document: the adapter's fail-on (default DEFAULT_FAIL_ON), and each recorded
 * workload's `failOn` (read defensively: documents are data).
 */
export function gatePolicyOf(
  workloads: Record<string, unknown> | undefined,
  failOn: FailOn = DEFAULT_FAIL_ON,
): GatePolicy {
  const own: Record<string, WorkloadPolicy> = {};
  for (const [name, w] of Object.entries(workloads ?? {})) {
    const value = typeof w === 'object' && w !== null ? (w as { failOn?: unknown }).failOn : undefined;
    const parsed = typeof value === 'string' ? parseFailOn(value) : undefined;
    if (parsed) own[name] = { failOn: parsed };
  }
  return { failOn, workloads: own };
}

/**
 * A maintainer's acceptance of a cell's regression (`/pgperf accept`), for one head commit and at the delta
 * it showed then. The adapter establishes it (who, with what permission, unedited) before it gets here.
 */
export interface Acceptance {
  workload: string;
  clients: number;
  /** The metric name (results/metrics.ts) whose regression was accepted. */
  metric: string;
  /** The head commit the accepted result measured. */
  sha: string;
  /** The delta accepted, in percent. */
  deltaPct: number;
  /** The GitHub login that accepted it. */
  by: string;
  reason: string;
}

/** What became of an acceptance for a cell of this decision. */
export interface CellAcceptance {
  by: string;
  reason: string;
  sha: string;
  acceptedDeltaPct: number;
  /** valid: the gate passes for the cell; new-head: given for another commit; worse: the regression grew. */
  state: 'valid' | 'new-head' | 'worse';
}

/**
 * The acceptance of a cell, if one names it: still valid for the same head commit unless the delta moved
 * in the worse direction by more than the cell's threshold beyond the accepted one. The latest wins.
 */
export function acceptanceOf(
  cell: { workload: string; clients: number; metric: string; deltaPct: number | null; thresholdPct: number },
  better: 'higher' | 'lower',
  accepted: { headSha: string; acceptances: readonly Acceptance[] } | undefined,
): CellAcceptance | undefined {
  const matching = (accepted?.acceptances ?? []).filter(
    (a) => a.workload === cell.workload && a.clients === cell.clients && a.metric === cell.metric,
  );
  // The latest acceptance for this head wins; otherwise the latest at all (to say it no longer applies).
  const a = matching.filter((m) => m.sha === accepted!.headSha).at(-1) ?? matching.at(-1);
  if (!a) return undefined;
  const base = { by: a.by, reason: a.reason, sha: a.sha, acceptedDeltaPct: a.deltaPct };
  if (a.sha !== accepted!.headSha) return { ...base, state: 'new-head' };
  const worse = (d: number) => (better === 'higher' ? -d : d);
  if (cell.deltaPct === null || worse(cell.deltaPct) - worse(a.deltaPct) > cell.thresholdPct) {
    return { ...base, state: 'worse' };
  }
  return { ...base, state: 'valid' };
}
