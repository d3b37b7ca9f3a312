/**
 * Stored baselines: measure only head and compare it with the stored samples of an earlier run
 * (`--baseline stored[:REF]`). The stage selects the stored run, guards against machine drift with a
 * sentinel (the base install re-measured now for a few rounds, interleaved with head, against its stored
 * samples), checks that both runs were measured under the same environment fingerprint, and merges the
 * stored base samples and the new head samples into one results document whose arms[0] is the stored
 * base, with `baseline` recording where it came from, so that compare and the reports work unchanged.
 *
 * The rounds of the two arms were not interleaved, so the comparison uses the unpaired test (analyse()
 * reads `result.baseline`); a drifted sentinel refuses the comparison or marks it inconclusive.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { compareRun } from '../compare/compare-run.js';
import type { CellComparison } from '../compare/types.js';
import { diffFingerprints, type Fingerprint } from '../env/fingerprint.js';
import type { ArmInfo, RunResult, Sample, SentinelOutcome, StoredBaselineInfo } from '../results/types.js';
import { writeResults } from '../results/write-results.js';
import type { ResultStore, StoredRun } from '../store/store.js';
import { commitMatches } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { analyse, analysisOf } from './analysis.js';
import { withNoiseWarnings } from './noise-warnings.js';
import {
  runPipeline,
  RESULTS_FILE,
  type PipelineDeps,
  type PipelineOutcome,
  type PipelineRequest,
} from './pipeline.js';

/** Where the base comes from: measured in this job (the default), or stored samples of an earlier run. */
export type BaselineSpec = { kind: 'same-job' } | { kind: 'stored'; ref?: string };

/** Parses `same-job`, `stored` or `stored:REF`; `name` is the flag or input, for the error. */
export function parseBaselineSpec(value: string, name: string): BaselineSpec {
  const v = value.trim();
  if (v === 'same-job') return { kind: 'same-job' };
  if (v === 'stored') return { kind: 'stored' };
  if (v.startsWith('stored:') && v.length > 'stored:'.length)
    return { kind: 'stored', ref: v.slice(7).trim() };
  throw new UserError(
    `${name} '${value}' is not a baseline; expected same-job, stored (the newest stored run) or stored:REF (a sha prefix or a ref name)`,
  );
}

export interface StoredBaselineOptions {
  /** A sha prefix or ref name the stored run's head (or only) arm must match; default: the newest run. */
  ref?: string;
  /** The store the baseline is read from (and the merged run saved to, through deps.archive). */
  store: Pick<ResultStore, 'list' | 'load' | 'description'>;
  /** Compare even when the fingerprints differ; the report says so. */
  allowFingerprintMismatch: boolean;
  /** Rounds of the drift sentinel (0: none). */
  sentinelRounds: number;
  onDrift: 'refuse' | 'inconclusive';
  /** "now", for the baseline's age (tests). */
  now?: () => Date;
}

export const DEFAULT_SENTINEL_ROUNDS = 3;

const DAY_MS = 24 * 3600 * 1000;

/**
 * Runs head only (after a sentinel when the base install still exists) and compares it with the stored
 * baseline. The merged document is written to `req.runDir/results.json` and saved through deps.archive.
 */
export async function runStoredBaseline(
  req: PipelineRequest,
  options: StoredBaselineOptions,
  deps: PipelineDeps,
): Promise<PipelineOutcome> {
  const head = headArm(req);
  const workloads = req.workloads.map((w) => w.name);
  const candidates = await candidateRuns(options, workloads);
  const preliminary = candidates[0]!;
  const preDoc = await options.store.load(preliminary.id);
  const preBase = baselineArm(preDoc);

  const { archive, ...measureDeps } = deps;
  const rounds = req.rounds ?? Math.max(...req.workloads.map((w) => w.rounds));
  const sentinelRounds = Math.min(options.sentinelRounds, rounds);
  const installed = await binDirExists(preBase.binDir);
  const warnings: string[] = [];
  let sentinelDoc: RunResult | undefined;
  let skippedBecause: string | undefined;
  if (sentinelRounds <= 0) skippedBecause = 'no sentinel: --sentinel-rounds is 0';
  else if (!installed) skippedBecause = `no sentinel: the baseline install is gone (${preBase.binDir})`;
  if (skippedBecause === undefined) {
    deps.logger.info(`sentinel: base ${preBase.binDir} and head interleaved for ${sentinelRounds} round(s)`);
    const sentinel = await runPipeline(
      {
        ...req,
        rounds: sentinelRounds,
        arms: {
          kind: 'installed',
          arms: [{ label: 'base', binDir: preBase.binDir, settings: preBase.settingOverrides }, head],
        },
        runDir: path.join(req.runDir, 'sentinel'),
      },
      measureDeps,
    );
    sentinelDoc = sentinel.result;
  } else {
    warnings.push(skippedBecause);
  }
  let headOnly: RunResult | undefined;
  const remaining = rounds - (sentinelDoc ? sentinelRounds : 0);
  if (remaining > 0 && sentinelDoc?.status !== 'interrupted') {
    const measured = await runPipeline(
      {
        ...req,
        rounds: remaining,
        arms: { kind: 'installed', arms: [head] },
        runDir: path.join(req.runDir, 'head'),
      },
      measureDeps,
    );
    headOnly = measured.result;
  }
  const reference = sentinelDoc ?? headOnly!;

  // The fingerprint decides which stored run is comparable. A head-only run hashes the settings of one
  // arm, a stored run those of its arms: settingsHash is then not comparable and left out (said below).
  const ignoreSettings = sentinelDoc === undefined;
  const choice = chooseByFingerprint(candidates, reference.fingerprint!, ignoreSettings);
  const storedEntry = choice.run ?? preliminary;
  const storedDoc = storedEntry.id === preDoc.runId ? preDoc : await options.store.load(storedEntry.id);
  const mismatch = diffFingerprints(storedDoc.fingerprint!, reference.fingerprint!).filter(
    (d) => !(ignoreSettings && d.fact === 'settingsHash'),
  );
  if (ignoreSettings) {
    warnings.push(
      'the settings hash was not compared: without a sentinel only head was measured in this job',
    );
  }
  if (mismatch.length > 0) {
    const facts = mismatch.map((d) => `${d.fact}: stored ${d.a ?? '(absent)'}, now ${d.b ?? '(absent)'}`);
    if (!options.allowFingerprintMismatch) {
      throw new UserError(
        `the stored baseline ${storedEntry.id} (fingerprint ${storedDoc.fingerprint!.id}) was measured under another environment than this run (fingerprint ${reference.fingerprint!.id}): ${facts.join('; ')}. ` +
          'Measure a baseline on this machine, or pass --allow-fingerprint-mismatch to compare anyway',
      );
    }
    warnings.push(
      `fingerprint mismatch allowed (--allow-fingerprint-mismatch): the baseline ${storedEntry.id} was measured under another environment: ${facts.join('; ')}`,
    );
  }
  const storedBase = baselineArm(storedDoc);

  let sentinel: SentinelOutcome;
  if (sentinelDoc && storedBase.binDir === preBase.binDir) {
    sentinel = judgeSentinel(storedDoc, storedBase, sentinelDoc, options.onDrift);
  } else {
    const reason =
      skippedBecause ?? 'no sentinel: the sentinel measured another install than the chosen baseline';
    sentinel = { status: 'skipped', reason, onDrift: options.onDrift };
    if (!skippedBecause) warnings.push(reason);
  }
  if (sentinel.status === 'drifted') warnings.push(sentinel.reason);

  const now = options.now?.() ?? new Date(reference.startedAt);
  const baseCommit = commitOf(storedDoc, storedBase);
  const info: StoredBaselineInfo = {
    runId: storedDoc.runId!,
    ...(baseCommit.sha !== undefined ? { commit: baseCommit.sha } : {}),
    ...(baseCommit.ref !== undefined ? { ref: baseCommit.ref } : {}),
    storedAt: storedEntry.savedAt,
    measuredAt: storedDoc.startedAt,
    ageDays: Math.max(0, Math.round(((now.getTime() - Date.parse(storedDoc.startedAt)) / DAY_MS) * 10) / 10),
    ...(mismatch.length > 0 ? { fingerprintMismatch: mismatch.map((d) => d.fact) } : {}),
    sentinel,
  };
  const merged = mergeRuns(
    storedDoc,
    storedBase,
    head.label,
    sentinelDoc,
    headOnly,
    sentinelRounds,
    info,
    warnings,
  );
  const resultsFile = path.join(req.runDir, RESULTS_FILE);
  await writeResults(resultsFile, merged);
  let archived: PipelineOutcome['archived'];
  let archiveError: string | undefined;
  if (archive) {
    try {
      archived = { id: (await archive.save(merged)).id, description: archive.description };
    } catch (e) {
      archiveError = `could not save the run to ${archive.description}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  if (sentinel.status === 'drifted' && options.onDrift === 'refuse') {
    throw new UserError(
      `${sentinel.reason}; refusing the comparison (--on-drift refuse). The results are in ${resultsFile}`,
    );
  }
  return {
    result: merged,
    comparison: await withNoiseWarnings(analyse(merged), merged, options.store, deps.logger),
    resultsFile,
    ...(archived ? { archived } : {}),
    ...(archiveError ? { archiveError } : {}),
  };
}

function headArm(req: PipelineRequest) {
  if (req.arms.kind !== 'installed' || req.arms.arms.length !== 1) {
    throw new UserError(
      '--baseline stored measures head only: give exactly one --arm LABEL=BINDIR (e.g. --arm head=/opt/pg/bin)',
    );
  }
  const head = req.arms.arms[0]!;
  if (head.label === 'base') {
    throw new UserError(
      `--arm base=${head.binDir}: with --baseline stored the stored run is the arm "base"; label the measured arm otherwise (e.g. head)`,
    );
  }
  return head;
}

/** Stored runs that can serve, newest first: they measured every workload, and match REF when given. */
async function candidateRuns(options: StoredBaselineOptions, workloads: string[]): Promise<StoredRun[]> {
  const listed = await options.store.list({ workload: workloads[0]! });
  const ofWorkloads = listed.filter((r) => workloads.every((w) => r.workloads.includes(w)));
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
        `--baseline stored:${ref}: no stored run of ${what} in ${options.store.description} has a head (or only) arm whose sha starts with or whose ref is '${ref}'; ` +
          `see "pgperf store list --workload ${workloads[0]}" for the commits stored`,
      );
    }
    throw new UserError(
      `--baseline stored: no complete stored run of ${what} in ${options.store.description} (any fingerprint); ` +
        `measure a baseline first (pgperf run ... with the store), and see "pgperf store list --workload ${workloads[0]}"`,
    );
  }
  return found;
}

/** The newest candidate with this fingerprint (settingsHash aside when it is not comparable). */
function chooseByFingerprint(
  candidates: StoredRun[],
  fingerprint: Fingerprint,
  ignoreSettings: boolean,
): { run?: StoredRun } {
  if (!ignoreSettings) return { run: candidates.find((c) => c.fingerprint === fingerprint.id) };
  return {}; // without the settings hash the ids differ: the diff of the newest decides
}

/** The arm of a stored run that serves as the baseline: its head (or only) arm. */
function baselineCommit(commits: StoredRun['commits']): { ref?: string; sha?: string } | undefined {
  return commits.length === 1 ? commits[0] : (commits.find((c) => c.arm === 'head') ?? commits.at(-1));
}

export function baselineArm(doc: RunResult): ArmInfo {
  const arms = doc.arms;
  return arms.length === 1 ? arms[0]! : (arms.find((a) => a.label === 'head') ?? arms.at(-1)!);
}

function commitOf(doc: RunResult, arm: ArmInfo): { ref?: string; sha?: string } {
  const build = (arm.build ?? {}) as { ref?: unknown; sha?: unknown };
  const source =
    arm.label === 'base' ? doc.source?.base : arm.label === 'head' ? doc.source?.head : undefined;
  const ref = typeof build.ref === 'string' ? build.ref : source?.ref;
  const sha = typeof build.sha === 'string' ? build.sha : source?.sha;
  return { ...(ref !== undefined ? { ref } : {}), ...(sha !== undefined ? { sha } : {}) };
}

async function binDirExists(binDir: string): Promise<boolean> {
  try {
    return (await stat(path.join(binDir, 'postgres'))).isFile();
  } catch {
    return false;
  }
}

/**
 * The sentinel's verdict: the base install measured now against its stored samples, unpaired, with the
 * run's α, threshold and metric. Drifted when a cell moved significantly beyond the threshold or its 95%
 * CI lies entirely beyond ±threshold.
 */
export function judgeSentinel(
  stored: RunResult,
  storedBase: ArmInfo,
  sentinel: RunResult,
  onDrift: SentinelOutcome['onDrift'],
): SentinelOutcome {
  const settings = analysisOf(sentinel);
  const doc: RunResult = {
    ...sentinel,
    arms: [
      { ...storedBase, label: 'stored' },
      { ...sentinel.arms[0]!, label: 'now' },
    ],
    samples: [
      ...stored.samples.filter((s) => s.arm === storedBase.label).map((s) => ({ ...s, arm: 'stored' })),
      ...sentinel.samples.filter((s) => s.arm === 'base').map((s) => ({ ...s, arm: 'now' })),
    ],
    warnings: [],
  };
  const comparison = compareRun(doc, { ...settings, test: 'unpaired' });
  const cells = comparison.comparisons[0]?.cells ?? [];
  const moved = cells.filter((c) => drifted(c));
  const what = `${settings.metric}, threshold ${settings.thresholdPct}%`;
  if (moved.length === 0) {
    const tested = cells.filter((c) => c.deltaPct !== null).length;
    return {
      status: 'steady',
      reason: `sentinel: the base install re-measured now did not move beyond the threshold in ${tested} cell(s) (${what})`,
      onDrift,
    };
  }
  const list = moved
    .map((c) => `${c.id} ${c.deltaPct! >= 0 ? '+' : ''}${c.deltaPct!.toFixed(1)}%`)
    .join(', ');
  const effect = onDrift === 'refuse' ? 'the comparison is refused' : 'the comparison is inconclusive';
  return {
    status: 'drifted',
    reason: `machine drift: the base install re-measured now differs from its stored samples beyond the threshold (${list}; ${what}): ${effect}`,
    onDrift,
  };
}

function drifted(c: CellComparison): boolean {
  if (c.verdict === 'regression' || c.verdict === 'improvement') return true;
  const ci = c.ci95;
  const t = c.thresholdPct;
  return ci !== null && (ci.lowerPct > t || ci.upperPct < -t);
}

/**
 * One document: the stored base samples (relabelled "base", rounds kept) and head's samples from the
 * sentinel and the head-only run (the head-only rounds numbered after the sentinel's).
 */
function mergeRuns(
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
  return {
    ...reference,
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
