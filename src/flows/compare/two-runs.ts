/**
 * Two results files compared (`pgperf compare BASE.json HEAD.json`): the base arm of one run (its arms[0])
 * against the head arm of another (its arm `head`, else its only arm, else its last), measured apart: base
 * on one day or one build, head on another. The two are merged into one results document the way a stored
 * baseline is (stored-baseline.ts): arms[0] is the base run's arm, `baseline` records where it came from,
 * so analyse() uses the unpaired test (rounds of two runs do not pair) and every report names the base run.
 *
 * What the two runs cannot share is said, not hidden: the first warning says that they were not
 * interleaved, so anything that changed on the machine between them reads as a change of the code;
 * environment facts and settings that differ are warned about with both values; cells measured by one
 * run only are left out and named. Workload definitions that differ (duration, script, scale, ...) measure
 * different things: refused, naming the field and both values. Pure: no file is read or written here.
 */
import {
  cellId,
  type ArmInfo,
  type ExecutedRun,
  type RunResult,
  type Sample,
  type StoredBaselineInfo,
} from '../../core/results/result-types.js';
import { UserError } from '../../core/util/errors.js';
import { conditionsOfArm } from './baseline/baseline-conditions.js';
import { conditionDifferences, type ConditionDifference } from './baseline/condition-differences.js';
import { baselineArm } from './baseline/choose-baseline.js';
import { commitOf } from './baseline/merge-baseline.js';

/** The two files, as the user named them (for messages and the report). */
export interface TwoRunFiles {
  base: string;
  head: string;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * One document: base's samples (arm relabelled `base`) and head's (labelled `head` when it was `base`),
 * for the cells both runs measured. Throws a UserError for a shard of a run, for runs without a cell in
 * common, and for workloads defined differently in the two runs.
 */
export function mergeTwoRuns(baseDoc: RunResult, headDoc: RunResult, files: TwoRunFiles): RunResult {
  for (const [doc, file] of [
    [baseDoc, files.base],
    [headDoc, files.head],
  ] as const) {
    if (doc.plan.shard) {
      throw new UserError(
        `${file} is ${doc.plan.shard.index === 0 ? 'a consolidation of shards' : `shard ${doc.plan.shard.index}/${doc.plan.shard.count} of a run`}: comparing two results files takes whole runs of one machine; compare it alone (pgperf compare ${file})`,
      );
    }
  }
  const baseArm = baseDoc.arms[0]!;
  const headArm = baselineArm(headDoc);
  const headLabel = headArm.label === 'base' ? 'head' : headArm.label;

  const baseCells = okCells(baseDoc, baseArm);
  const headCells = okCells(headDoc, headArm);
  const common = headDoc.plan.cells.map(cellId).filter((c) => baseCells.has(c) && headCells.has(c));
  if (common.length === 0) {
    throw new UserError(
      `${files.base} and ${files.head} have no cell in common with a completed run of both arms: ` +
        `base (arm '${baseArm.label}') measured ${listed(baseCells)}, head (arm '${headArm.label}') ${listed(headCells)}; ` +
        'compare runs of the same workloads and client counts',
    );
  }
  const inCommon = new Set(common);
  const workloads = [
    ...new Set(headDoc.plan.cells.filter((c) => inCommon.has(cellId(c))).map((c) => c.workload)),
  ];

  const differences = conditionDifferences(
    conditionsOfArm(baseDoc, baseArm),
    conditionsOfArm(headDoc, headArm),
  ).filter((d) => d.kind !== 'cells' && (d.workload === undefined || workloads.includes(d.workload)));
  const definitions = differences.filter((d) => d.kind === 'workload');
  if (definitions.length > 0) {
    throw new UserError(
      `${files.base} and ${files.head} ran the same workload defined differently (${definitions.map(shownDifference).join('; ')}): ` +
        'they measured different things, so their numbers do not compare; measure both with one workload file',
    );
  }
  const differing = differences.filter((d) => d.kind === 'environment' || d.kind === 'setting');

  const warnings = [
    `base and head were measured apart, not interleaved: base is arm '${baseArm.label}' of ${files.base} (measured ${baseDoc.startedAt}), ` +
      `head is arm '${headArm.label}' of ${files.head} (measured ${headDoc.startedAt}); the test is unpaired (Mann-Whitney) and whatever ` +
      'changed on the machine between the two runs reads as a change of the code. For a verdict to trust, measure both in one run ' +
      `(pgperf run --arm base=${baseArm.binDir} --arm ${headLabel}=${headArm.binDir} ...)`,
    ...(differing.length > 0
      ? [`the two runs differ in what they were measured under: ${grouped(differing, workloads).join('; ')}`]
      : []),
    ...leftOut(baseCells, inCommon, files.base),
    ...leftOut(headCells, inCommon, files.head),
    ...notCarried(baseDoc, files.base),
    ...notCarried(headDoc, files.head),
  ];

  const baseCommit = commitOf(baseDoc, baseArm);
  const baseline: StoredBaselineInfo = {
    runId: baseDoc.runId ?? files.base,
    ...(baseCommit.sha !== undefined ? { commit: baseCommit.sha } : {}),
    ...(baseCommit.ref !== undefined ? { ref: baseCommit.ref } : {}),
    storedAt: baseDoc.updatedAt,
    measuredAt: baseDoc.startedAt,
    ageDays: Math.max(
      0,
      Math.round(((Date.parse(headDoc.startedAt) - Date.parse(baseDoc.startedAt)) / DAY_MS) * 10) / 10,
    ),
    ...(differing.length > 0 ? { fingerprintMismatch: [...new Set(differing.map((d) => d.name))] } : {}),
    sentinel: {
      status: 'skipped',
      reason: `no sentinel: base (${files.base}) and head (${files.head}) come from two runs, not interleaved`,
      onDrift: 'inconclusive',
    },
  };

  // What compares arms measured together in one run does not carry over to arms of two runs.
  const {
    runId: _runId,
    fingerprint: _fingerprint,
    adaptive: _adaptive,
    instructions: _instructions,
    explanation: _explanation,
    plans: _plans,
    confirmation: _confirmation,
    compiledCode: _compiledCode,
    calibration: _calibration,
    baseline: _baseline,
    ...head
  } = headDoc;
  const stopped = [headDoc, baseDoc].find((d) => d.status !== 'complete');
  return {
    ...head,
    status: stopped?.status ?? 'complete',
    ...(stopped?.stopReason !== undefined ? { stopReason: stopped.stopReason } : {}),
    arms: [
      { ...baseArm, label: 'base' },
      { ...headArm, label: headLabel },
    ],
    workloads: Object.fromEntries(workloads.map((w) => [w, headDoc.workloads[w]])),
    plan: {
      ...headDoc.plan,
      rounds: Math.max(baseDoc.plan.rounds, headDoc.plan.rounds),
      cells: headDoc.plan.cells.filter((c) => inCommon.has(cellId(c))),
      executed: [
        ...relabelled(baseDoc.plan.executed, baseArm.label, 'base', inCommon),
        ...relabelled(headDoc.plan.executed, headArm.label, headLabel, inCommon),
      ],
    },
    source: {
      ...headDoc.source,
      base: { ...baseCommit, chosenBy: `arm '${baseArm.label}' of ${files.base}` },
      head: { ...commitOf(headDoc, headArm), chosenBy: `arm '${headArm.label}' of ${files.head}` },
    },
    baseline,
    samples: [
      ...relabelled(baseDoc.samples, baseArm.label, 'base', inCommon),
      ...relabelled(headDoc.samples, headArm.label, headLabel, inCommon),
    ],
    warnings: [...new Set([...warnings, ...baseDoc.warnings, ...headDoc.warnings])],
  };
}

/**
 * A warning naming what a run recorded about its arms measured together, which two runs' arms do not
 * share (instruction counts, a differential profile, a confirmation block, adaptive looks).
 */
function notCarried(doc: RunResult, file: string): string[] {
  const parts = [
    doc.instructions ? 'instruction counts' : undefined,
    doc.explanation ? 'the differential profiles' : undefined,
    doc.confirmation ? 'the confirmation block' : undefined,
    doc.adaptive ? 'the adaptive looks' : undefined,
  ].filter((p) => p !== undefined);
  return parts.length > 0
    ? [`not compared: ${parts.join(', ')} of ${file} (they compare arms measured in one run)`]
    : [];
}

/** The cells of `arm` with at least one ok sample. */
function okCells(doc: RunResult, arm: ArmInfo): Set<string> {
  return new Set(doc.samples.filter((s) => s.arm === arm.label && s.status === 'ok').map(cellId));
}

/** The entries of `from` in the given cells, relabelled `to`. */
function relabelled<T extends Sample | ExecutedRun>(
  entries: T[],
  from: string,
  to: string,
  cells: Set<string>,
): T[] {
  return entries.filter((e) => e.arm === from && cells.has(cellId(e))).map((e) => ({ ...e, arm: to }));
}

/** A warning for the cells of one file the other did not measure (none when every cell compared). */
function leftOut(cells: Set<string>, compared: Set<string>, file: string): string[] {
  const only = [...cells].filter((c) => !compared.has(c));
  return only.length > 0 ? [`not compared: ${only.join(', ')} (measured in ${file} only)`] : [];
}

function listed(cells: Set<string>): string {
  return cells.size > 0 ? [...cells].join(', ') : 'no cell';
}

/**
 * The differences shown once each: a setting that differs alike in every compared workload (an arm's
 * --set) without naming them, else with the workloads it differs in.
 */
function grouped(diffs: ConditionDifference[], workloads: string[]): string[] {
  const byValue = new Map<string, { d: ConditionDifference; in: string[] }>();
  for (const d of diffs) {
    const key = JSON.stringify([d.kind, d.name, d.stored, d.now]);
    const entry = byValue.get(key) ?? { d: { ...d, workload: undefined }, in: [] };
    if (d.workload !== undefined) entry.in.push(d.workload);
    byValue.set(key, entry);
  }
  return [...byValue.values()].map(({ d, in: ws }) =>
    shownDifference(
      ws.length === 0 || ws.length === workloads.length ? d : { ...d, workload: ws.join(', ') },
    ),
  );
}

/** "shared_buffers (workload select-only): base '128MB', head '1GB'". */
function shownDifference(d: ConditionDifference): string {
  const where = d.workload !== undefined ? ` (workload ${d.workload})` : '';
  const value = (v: string | undefined) => (v === undefined ? '(not set)' : `'${v}'`);
  return `${d.name}${where}: base ${value(d.stored)}, head ${value(d.now)}`;
}
