/**
 * The stored base and the new head as one results document: arms[0] is the stored base (relabelled "base",
 * rounds kept), head's samples come from the sentinel and the head-only run, and `baseline` records where
 * the base came from, so that compare, the reports and `pgperf compare results.json` work unchanged.
 */
import type {
  ArmInfo,
  RunResult,
  Sample,
  SentinelOutcome,
  StoredBaselineInfo,
} from '../../../core/results/result-types.js';
import type { StoredRun } from '../../../store/store.js';
import { differenceName, type ConditionDifference } from './condition-differences.js';

const DAY_MS = 24 * 3600 * 1000;

/** The commit an arm measured: its build record's, else the run's recorded source for its label. */
export function commitOf(doc: RunResult, arm: ArmInfo): { ref?: string; sha?: string } {
  const build = (arm.build ?? {}) as { ref?: unknown; sha?: unknown };
  const source =
    arm.label === 'base' ? doc.source?.base : arm.label === 'head' ? doc.source?.head : undefined;
  const ref = typeof build.ref === 'string' ? build.ref : source?.ref;
  const sha = typeof build.sha === 'string' ? build.sha : source?.sha;
  return { ...(ref !== undefined ? { ref } : {}), ...(sha !== undefined ? { sha } : {}) };
}

/**
 * Where the base came from, for results.json's `baseline`: the stored run, the commit its arm measured,
 * its age against `now` (days, one decimal), what differed from head's conditions, and the sentinel.
 */
export function baselineInfo(
  entry: StoredRun,
  stored: RunResult,
  storedBase: ArmInfo,
  now: Date,
  mismatch: readonly ConditionDifference[],
  sentinel: SentinelOutcome,
): StoredBaselineInfo {
  const baseCommit = commitOf(stored, storedBase);
  return {
    runId: stored.runId!,
    ...(baseCommit.sha !== undefined ? { commit: baseCommit.sha } : {}),
    ...(baseCommit.ref !== undefined ? { ref: baseCommit.ref } : {}),
    storedAt: entry.savedAt,
    measuredAt: stored.startedAt,
    ageDays: Math.max(0, Math.round(((now.getTime() - Date.parse(stored.startedAt)) / DAY_MS) * 10) / 10),
    ...(mismatch.length > 0 ? { fingerprintMismatch: [...new Set(mismatch.map(differenceName))] } : {}),
    sentinel,
  };
}

/** Each recorded workload with `rounds` (where it records rounds) set to the whole run's. */
function wholeRunWorkloads(workloads: RunResult['workloads'], rounds: number): RunResult['workloads'] {
  return Object.fromEntries(
    Object.entries(workloads).map(([name, w]) => [
      name,
      typeof (w as { rounds?: unknown }).rounds === 'number' ? { ...(w as object), rounds } : w,
    ]),
  ) as RunResult['workloads'];
}

/**
 * One document: the stored base samples (relabelled "base", rounds kept) and head's samples from the
 * sentinel and the head-only run (the head-only rounds numbered after the sentinel's).
 */
export function mergeRuns(
  stored: RunResult,
  storedBase: ArmInfo,
  headLabel: string,
  sentinel: RunResult | undefined,
  headOnly: RunResult | undefined,
  sentinelRounds: number,
  info: StoredBaselineInfo,
  warnings: string[],
): RunResult {
  const reference = sentinel ?? headOnly!;
  const cells = new Set(reference.plan.cells.map((c) => `${c.workload}@${c.clients}`));
  const baseSamples: Sample[] = stored.samples
    .filter((s) => s.arm === storedBase.label && cells.has(`${s.workload}@${s.clients}`))
    .map((s) => ({ ...s, arm: 'base' }));
  const offset = sentinel ? sentinelRounds : 0;
  const headSamples: Sample[] = [
    ...(sentinel?.samples.filter((s) => s.arm === headLabel) ?? []),
    ...(headOnly?.samples.map((s) => ({ ...s, round: s.round + offset })) ?? []),
  ];
  const headInfo = reference.arms.find((a) => a.label === headLabel)!;
  const executed = [
    ...(sentinel?.plan.executed.filter((e) => e.arm === headLabel) ?? []),
    ...(headOnly?.plan.executed.map((e) => ({ ...e, round: e.round + offset })) ?? []),
  ];
  const statuses = [sentinel?.status, headOnly?.status].filter((s) => s !== undefined);
  const status = statuses.find((s) => s !== 'complete') ?? 'complete';
  const stopReason = [sentinel?.stopReason, headOnly?.stopReason].find((r) => r !== undefined);
  const base = commitOf(stored, storedBase);
  const last = headOnly ?? sentinel!;
  // The workloads as the whole run had them: the sentinel's record says its own few rounds, the head-only
  // run's the rest; a Reproduce block made from them would plan too few rounds to decide (and be refused).
  const headRounds = offset + (headOnly?.plan.rounds ?? 0);
  return {
    ...reference,
    workloads: wholeRunWorkloads(reference.workloads, headRounds),
    status,
    ...(stopReason !== undefined ? { stopReason } : {}),
    updatedAt: last.updatedAt,
    arms: [{ ...storedBase, label: 'base' }, headInfo],
    plan: {
      ...reference.plan,
      rounds: Math.max(stored.plan.rounds, offset + (headOnly?.plan.rounds ?? 0)),
      executed,
    },
    source: {
      ...reference.source,
      base: { ...base, chosenBy: `stored run ${info.runId} (${info.ageDays} day(s) old)` },
    },
    baseline: info,
    samples: [...baseSamples, ...headSamples],
    warnings: [...new Set([...(sentinel?.warnings ?? []), ...(headOnly?.warnings ?? []), ...warnings])],
  };
}
