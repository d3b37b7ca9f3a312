/**
 * Which stored run serves as the baseline, decided once before the first round (the sentinel and the
 * comparison both use it): the newest stored run of the workloads (of REF, when given) with timed samples
 * whose baseline arm was measured under head's conditions and has samples of every requested cell. A refusal names what
 * differs in the newest, with both values, and how to proceed, before anything is measured.
 */
import type { ArmInfo, RunResult } from '../../../core/results/result-types.js';
import type { StoredRun } from '../../../store/store.js';
import { commitMatches } from '../../../store/store.js';
import { UserError } from '../../../core/util/errors.js';
import { settingProblem } from '../../../core/results/settings.js';
import { shownName } from '../../../core/results/check-results.js';
import { conditionsOfArm, type ArmConditions } from './baseline-conditions.js';
import {
  conditionDifferences,
  describeDifferences,
  differenceKey,
  differenceName,
  type ConditionDifference,
} from './condition-differences.js';
import { CLI_STORED_BASELINE_NAMES, type StoredBaselineOptions } from './stored-baseline-spec.js';

/** How many stored runs (newest first) are examined for one that fits before refusing. */
export const MAX_CANDIDATES_EXAMINED = 20;

/** The stored run a `--baseline stored` run compares with, and its arm that serves as base. */
export interface StoredBaselineChoice {
  entry: StoredRun;
  doc: RunResult;
  arm: ArmInfo;
  /** What differs from head's conditions: empty unless --allow-fingerprint-mismatch let it through. */
  differences: ConditionDifference[];
  /** Newer stored runs passed over, and what differed in each. */
  passedOver: Array<{ id: string; differences: ConditionDifference[] }>;
}

/**
 * The one rule that chooses the stored baseline (the sentinel and the comparison both use its choice):
 * of the stored runs of every requested workload (complete; or of REF, when given), newest first, the
 * first whose baseline arm's conditions do not differ from head's. With --allow-fingerprint-mismatch,
 * else the newest that has samples of every requested cell (what differs is recorded). Otherwise a
 * UserError naming what differs in the newest, with both values, and how to proceed.
 */
export async function chooseStoredBaseline(
  options: Pick<StoredBaselineOptions, 'ref' | 'store' | 'allowFingerprintMismatch' | 'names'>,
  now: ArmConditions,
  headLabel: string,
): Promise<StoredBaselineChoice> {
  const workloads = Object.keys(now.workloads);
  const baseline = (options.names ?? CLI_STORED_BASELINE_NAMES).baseline;
  const candidates = await candidateRuns(options, workloads, baseline);
  const examined: StoredBaselineChoice[] = [];
  for (const entry of candidates.slice(0, MAX_CANDIDATES_EXAMINED)) {
    const doc = await options.store.load(entry.id);
    const arm = baselineArm(doc);
    refuseStoredSettings(entry, doc, arm, options.store.description, baseline);
    const differences = conditionDifferences(conditionsOfArm(doc, arm), now);
    const passedOver = examined.map((c) => ({ id: c.entry.id, differences: c.differences }));
    const choice = { entry, doc, arm, differences, passedOver };
    if (differences.length === 0) return choice;
    examined.push(choice);
  }
  if (options.allowFingerprintMismatch) {
    const usable = examined.find((c) => !c.differences.some((d) => d.kind === 'cells'));
    if (usable) return usable;
  }
  throw new UserError(refusal(options, examined, candidates.length, now, headLabel));
}

/**
 * The same comparison on what was measured. It ran before the first round, so a difference seen only now
 * is a condition that changed while measuring: said and recorded by the caller, not refused (the samples
 * exist).
 */
export function changedWhileMeasuring(
  choice: StoredBaselineChoice,
  measured: Array<RunResult | undefined>,
  headLabel: string,
): ConditionDifference[] {
  const stored = conditionsOfArm(choice.doc, choice.arm);
  const seen = new Set(choice.differences.map(differenceKey));
  const late: ConditionDifference[] = [];
  for (const doc of measured) {
    const head = doc?.arms.find((a) => a.label === headLabel);
    if (!doc || !head) continue;
    for (const d of conditionDifferences(stored, conditionsOfArm(doc, head))) {
      if (!seen.has(differenceKey(d))) late.push(d);
      seen.add(differenceKey(d));
    }
  }
  return late;
}

/**
 * The stored arm's settings are those the sentinel would start the base install with: each is checked as a
 * workload's or --set's (settingProblem, src/core/results/settings.ts) when the run is read, so a refused
 * setting in a stored run (written by an older pgperf, or edited in the store) stops the comparison before
 * anything starts, not after initdb.
 */
function refuseStoredSettings(
  entry: StoredRun,
  doc: RunResult,
  arm: ArmInfo,
  store: string,
  baseline: string,
): void {
  for (const [name, value] of Object.entries(arm.settingOverrides)) {
    const problem = settingProblem(name, value);
    if (problem === undefined) continue;
    throw new UserError(
      `${baseline} stored: the stored run ${entry.id} (measured ${doc.startedAt}) in ${store} records a setting pgperf refuses for its arm ${shownName(arm.label)}: ${problem}. ` +
        `pgperf would start its install with the settings it recorded, so nothing was measured. Choose another stored run with ${baseline} stored:REF, or remove this one from the store`,
    );
  }
}

function refusal(
  options: Pick<StoredBaselineOptions, 'ref' | 'store' | 'allowFingerprintMismatch' | 'names'>,
  examined: StoredBaselineChoice[],
  candidates: number,
  now: ArmConditions,
  headLabel: string,
): string {
  const workloads = Object.keys(now.workloads);
  const names = options.names ?? CLI_STORED_BASELINE_NAMES;
  const flag = `${names.baseline} stored${options.ref !== undefined ? `:${options.ref}` : ''}`;
  const newest = examined[0]!;
  const others =
    examined.length > 1
      ? ` The ${examined.length - 1} older one(s) examined differ too${candidates > examined.length ? ` (of ${candidates} stored)` : ''}.`
      : '';
  const how: string[] = [];
  const sets = names.set
    ? newest.differences
        .filter((d) => d.kind === 'setting' && d.stored !== undefined)
        .map((d) => names.set!(headLabel, d.name, String(d.stored)))
    : [];
  if (sets.length > 0)
    how.push(`measure ${headLabel} with the stored settings (${[...new Set(sets)].join(' ')})`);
  const clientFacts = newest.differences.filter(
    (d) => d.kind === 'environment' && d.name.startsWith('client.'),
  );
  const storedClient = (newest.doc.clients ?? []).find((c) =>
    clientFacts.some((d) => d.name === `client.${c.tool}`),
  );
  if (storedClient?.tool === 'pgbench' && names.clientBin) {
    how.push(`drive ${headLabel} with the stored run's client (${names.clientBin} ${storedClient.binDir})`);
  }
  const duration = newest.differences.find((d) => d.kind === 'workload' && d.name === 'duration');
  if (duration?.stored !== undefined && names.duration)
    how.push(`run as long as the stored run (${names.duration} ${duration.stored})`);
  const cells = newest.differences.filter((d) => d.kind === 'cells');
  if (cells.length > 0) {
    how.push(
      `request only stored client counts (${cells.map((d) => `${d.workload}: ${d.stored}`).join(', ')}) or store a run that measured the others`,
    );
  } else if (!options.allowFingerprintMismatch && names.allowMismatch) {
    how.push(`pass ${names.allowMismatch} to compare anyway (the report says what differs)`);
  }
  how.push(
    `choose another stored run with ${names.baseline} stored:REF (see "pgperf store list --workload ${workloads[0]}"), or measure a new baseline on this machine`,
  );
  return (
    `${flag}: the stored run ${newest.entry.id} (measured ${newest.doc.startedAt}, arm ${newest.arm.label}) in ${options.store.description} ` +
    `was measured under other conditions than ${headLabel} would be now: ${describeDifferences(newest.differences, workloads)}.${others} ` +
    `Nothing was measured. To proceed: ${how.join('; or ')}`
  );
}

/** The log line that says which stored run serves, and why newer ones did not. */
export function describeChoice(choice: StoredBaselineChoice): string {
  const { entry, doc, arm, passedOver } = choice;
  const skipped = passedOver.length
    ? `; passed over ${passedOver.length} newer stored run(s) measured under other conditions (${passedOver
        .map((p) => `${p.id}: ${[...new Set(p.differences.map(differenceName))].join(', ')}`)
        .join('; ')})`
    : '';
  return `baseline: stored run ${entry.id} (measured ${doc.startedAt}), its arm ${arm.label}${skipped}`;
}

/**
 * Stored runs that can serve, newest first: they measured every workload, and match REF when given. A run
 * decided without timed rounds (same compiled code, the counts decide) is stored with no sample: never a
 * candidate, nor counted among those examined.
 */
async function candidateRuns(
  options: Pick<StoredBaselineOptions, 'ref' | 'store'>,
  workloads: string[],
  baseline: string,
): Promise<StoredRun[]> {
  const listed = await options.store.list({ workload: workloads[0]! });
  const ofWorkloads = listed.filter((r) => r.samples > 0 && workloads.every((w) => r.workloads.includes(w)));
  const ref = options.ref;
  const found =
    ref === undefined
      ? ofWorkloads.filter((r) => r.status === 'complete')
      : ofWorkloads.filter(
          (r) => r.status !== 'running' && commitMatches(baselineCommit(r.commits) ?? {}, ref),
        );
  if (found.length === 0) {
    const what = `workload${workloads.length > 1 ? 's' : ''} ${workloads.join(', ')}`;
    if (ref !== undefined) {
      throw new UserError(
        `${baseline} stored:${ref}: no stored run of ${what} with timed samples in ${options.store.description} has a head (or only) arm whose sha starts with or whose ref is '${ref}'; ` +
          `see "pgperf store list --workload ${workloads[0]}" for the commits stored`,
      );
    }
    throw new UserError(
      `${baseline} stored: no complete stored run of ${what} with timed samples in ${options.store.description} (any fingerprint); ` +
        `measure a baseline first (pgperf run ... with the store), and see "pgperf store list --workload ${workloads[0]}"`,
    );
  }
  return found;
}

/** The commit of a listed run's baseline arm (as baselineArm chooses it), from the store's listing. */
function baselineCommit(commits: StoredRun['commits']): { ref?: string; sha?: string } | undefined {
  return commits.length === 1 ? commits[0] : (commits.find((c) => c.arm === 'head') ?? commits.at(-1));
}

/** The arm of a stored run that serves as the baseline: its head (or only) arm, else its last. */
export function baselineArm(doc: RunResult): ArmInfo {
  const arms = doc.arms;
  return arms.length === 1 ? arms[0]! : (arms.find((a) => a.label === 'head') ?? arms.at(-1)!);
}
