/**
 * Stored baselines: measure only head and compare it with the stored samples of an earlier run
 * (`--baseline stored[:REF]`). The stage selects the stored run, guards against machine drift with a
 * sentinel (the base install re-measured now for a few rounds, interleaved with head, against its stored
 * samples), and merges the stored base samples and the new head samples into one results document whose
 * arms[0] is the stored base, with `baseline` recording where it came from, so that compare and the
 * reports work unchanged.
 *
 * Which stored run serves is decided once, before the first round (chooseStoredBaseline), and both the
 * sentinel and the comparison use it: the newest stored run of the workloads (of REF, when given) whose
 * baseline arm was measured under the conditions head will be measured under now (conditionDifferences:
 * the environment fingerprint's facts for that arm, the settings the workloads and the arm chose, the
 * workload definitions) and has samples of every requested cell. A refusal names what differs, with
 * both values, before anything is measured.
 *
 * The rounds of the two arms were not interleaved, so the comparison uses the unpaired test (analyse()
 * reads `result.baseline`); a drifted sentinel refuses the comparison or marks it inconclusive.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { compareRun } from '../../core/compare/compare-run.js';
import type { CellComparison } from '../../core/compare/types.js';
import { createDriver } from '../../drivers/registry.js';
import { workloadSchema, type Workload } from '../../drivers/workload.js';
import { captureEnvironment } from '../../machine/environment.js';
import {
  WORKLOAD_HASH_IGNORED,
  canonicalJson,
  environmentFingerprint,
  type FingerprintSource,
} from '../../machine/fingerprint.js';
import {
  cellId,
  type ArmInfo,
  type ClientInfo,
  type Environment,
  type RunResult,
  type Sample,
  type SentinelOutcome,
  type StoredBaselineInfo,
} from '../../core/results/types.js';
import { writeResults } from '../../store/write-results.js';
import type { ArmSpec } from '../../run/run-loop.js';
import type { ResultStore, StoredRun } from '../../store/store.js';
import { commitMatches } from '../../store/store.js';
import { UserError } from '../../core/util/errors.js';
import { settingProblem } from '../../core/results/settings.js';
import { shownName } from '../../core/results/check-results.js';
import { memoryLogger } from '../../core/util/logger.js';
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
  /**
   * Compare even when no stored run was measured under head's conditions (facts, settings, workload
   * fields; not cells it has no samples of): the newest serves and the report says what differs.
   */
  allowFingerprintMismatch: boolean;
  /** Rounds of the drift sentinel (0: none). */
  sentinelRounds: number;
  onDrift: 'refuse' | 'inconclusive';
  /** "now", for the baseline's age (tests). */
  now?: () => Date;
  /**
   * How the adapter spells the knobs a refusal suggests (default: the CLI's flags); a knob the adapter
   * lacks is left out of the advice.
   */
  names?: StoredBaselineNames;
}

export interface StoredBaselineNames {
  baseline: string;
  allowMismatch?: string;
  /** e.g. (arm, name, value) => `--set ${arm}:${name}=${value}`. */
  set?: (arm: string, name: string, value: string) => string;
  clientBin?: string;
  duration?: string;
}

export const CLI_STORED_BASELINE_NAMES: StoredBaselineNames = {
  baseline: '--baseline',
  allowMismatch: '--allow-fingerprint-mismatch',
  set: (arm, name, value) => `--set ${arm}:${name}=${value}`,
  clientBin: '--client-bin',
  duration: '--duration',
};

export const DEFAULT_SENTINEL_ROUNDS = 3;

const DAY_MS = 24 * 3600 * 1000;

/**
 * Runs head only (after a sentinel when the base install still exists) and compares it with the stored
 * baseline. Everything that can be checked without a server is checked first: head's conditions, and the
 * stored run they are compared with. The merged document is written to `req.runDir/results.json` and
 * saved through deps.archive.
 */
export async function runStoredBaseline(
  req: PipelineRequest,
  options: StoredBaselineOptions,
  deps: PipelineDeps,
): Promise<PipelineOutcome> {
  const head = headArm(req);
  // One client drives head in the sentinel and alone (the run loop's default would be the first arm's,
  // base's, in the sentinel): the one the conditions were checked with.
  const clientBinDir = req.clientBinDir ?? head.binDir;
  const now = await headConditions(req, head, clientBinDir, deps);
  const choice = await chooseStoredBaseline(options, now, head.label);
  const { entry: storedEntry, doc: storedDoc, arm: storedBase } = choice;
  deps.logger.info(describeChoice(choice));

  const { archive, ...measureDeps } = deps;
  const rounds = req.rounds ?? Math.max(...req.workloads.map((w) => w.rounds));
  const sentinelRounds = Math.min(options.sentinelRounds, rounds);
  const installed = await binDirExists(storedBase.binDir);
  const warnings: string[] = [];
  if (choice.differences.length > 0) {
    warnings.push(
      `fingerprint mismatch allowed (--allow-fingerprint-mismatch): the baseline ${storedEntry.id} was measured under other conditions: ${describeDifferences(choice.differences, Object.keys(now.workloads))}`,
    );
  }
  let sentinelDoc: RunResult | undefined;
  let skippedBecause: string | undefined;
  if (sentinelRounds <= 0) skippedBecause = 'no sentinel: --sentinel-rounds is 0';
  else if (!installed) skippedBecause = `no sentinel: the baseline install is gone (${storedBase.binDir})`;
  if (skippedBecause === undefined) {
    deps.logger.info(
      `sentinel: base ${storedBase.binDir} and head interleaved for ${sentinelRounds} round(s)`,
    );
    const sentinel = await runPipeline(
      {
        ...req,
        rounds: sentinelRounds,
        partOfRun: true,
        clientBinDir,
        arms: {
          kind: 'installed',
          arms: [{ label: 'base', binDir: storedBase.binDir, settings: storedBase.settingOverrides }, head],
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
        partOfRun: true,
        clientBinDir,
        arms: { kind: 'installed', arms: [head] },
        runDir: path.join(req.runDir, 'head'),
      },
      measureDeps,
    );
    headOnly = measured.result;
  }
  const reference = sentinelDoc ?? headOnly!;

  const late = changedWhileMeasuring(choice, [sentinelDoc, headOnly], head.label);
  if (late.length > 0) {
    warnings.push(
      `the conditions changed while measuring: ${describeDifferences(late, Object.keys(now.workloads))}; the comparison mixes them`,
    );
  }
  if (storedDoc.pgperfVersion !== reference.pgperfVersion) {
    warnings.push(
      `the baseline ${storedEntry.id} was measured with pgperf ${storedDoc.pgperfVersion}, this run with ${reference.pgperfVersion}: the settings pgperf writes itself are not compared, only those of the workloads and arms`,
    );
  }
  const mismatch = [...choice.differences, ...late];

  let sentinel: SentinelOutcome;
  if (sentinelDoc) {
    sentinel = judgeSentinel(storedDoc, storedBase, sentinelDoc, options.onDrift);
  } else {
    sentinel = { status: 'skipped', reason: skippedBecause!, onDrift: options.onDrift };
  }
  if (sentinel.status === 'drifted') warnings.push(sentinel.reason);

  const nowDate = options.now?.() ?? new Date(reference.startedAt);
  const baseCommit = commitOf(storedDoc, storedBase);
  const info: StoredBaselineInfo = {
    runId: storedDoc.runId!,
    ...(baseCommit.sha !== undefined ? { commit: baseCommit.sha } : {}),
    ...(baseCommit.ref !== undefined ? { ref: baseCommit.ref } : {}),
    storedAt: storedEntry.savedAt,
    measuredAt: storedDoc.startedAt,
    ageDays: Math.max(
      0,
      Math.round(((nowDate.getTime() - Date.parse(storedDoc.startedAt)) / DAY_MS) * 10) / 10,
    ),
    ...(mismatch.length > 0 ? { fingerprintMismatch: [...new Set(mismatch.map(differenceName))] } : {}),
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

/**
 * The same comparison on what was measured. It ran before the first round, so a difference seen only now
 * is a condition that changed while measuring: said and recorded by the caller, not refused (the samples
 * exist).
 */
function changedWhileMeasuring(
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

function headArm(req: PipelineRequest): ArmSpec {
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

/**
 * What one arm was (or will be) measured under, as far as it decides whether its samples compare with
 * another arm's measured on another day.
 */
export interface ArmConditions {
  /**
   * The environment fingerprint's facts for this arm alone: machine, this arm's build, the client tools,
   * the controls. Not the run's settingsHash: it hashes the postgresql.conf of every arm of a run under
   * its label, so a stored run and this job's arms never share it; settings are compared by name.
   */
  facts: Record<string, string>;
  /** Workload definitions by name, as run (duration and warm-up overrides applied). */
  workloads: Record<string, unknown>;
  /** The arm's own settings (--set), applied after the workload's. */
  armSettings: Record<string, string>;
  /** Cells (cellId): for a measured arm those with an ok sample; for head before measuring, those requested. */
  cells: string[];
}

/** The conditions of an arm of a results document (a stored run, or what this job measured). */
export function conditionsOfArm(doc: RunResult, arm: ArmInfo): ArmConditions {
  const ok = doc.samples.filter((s) => s.arm === arm.label && s.status === 'ok');
  return {
    facts: armFacts({ environment: doc.environment, clients: doc.clients, arms: [arm] }),
    workloads: doc.workloads,
    armSettings: arm.settingOverrides,
    cells: [...new Set(ok.map(cellId))],
  };
}

/**
 * head's conditions before anything runs: the machine read now, the client that will drive it (its
 * version asked now), the controls requested, the workloads with the run's overrides.
 */
async function headConditions(
  req: PipelineRequest,
  head: ArmSpec,
  clientBinDir: string,
  deps: PipelineDeps,
): Promise<ArmConditions> {
  const workloads = req.workloads.map((w) => asRun(w, req.durationS));
  const environment: Environment = {
    ...(await captureEnvironment('')),
    ...plannedControls(req.controls),
  };
  const clients: ClientInfo[] = [];
  for (const w of workloads) {
    if (clients.some((c) => c.tool === w.tool)) continue;
    // Only asked for its version; the run loop says anything worth saying about the client itself.
    const driverDeps = { clientBinDir, cpuCount: 1, runner: deps.runner, logger: memoryLogger() };
    clients.push(await createDriver(w, { ...driverDeps, searchPath: deps.searchPath ?? '' }).client());
  }
  return {
    facts: armFacts({ environment, clients, arms: [head] }),
    workloads: Object.fromEntries(workloads.map((w) => [w.name, w])),
    armSettings: head.settings,
    cells: workloads.flatMap((w) => w.clients.map((clients) => cellId({ workload: w.name, clients }))),
  };
}

/** A workload as the run loop runs it (run-loop.ts applyOverrides; rounds aside: they are not compared). */
function asRun(w: Workload, durationS: number | undefined): Workload {
  const duration = durationS ?? w.duration;
  return { ...w, duration, warmup: Math.min(w.warmup, duration) };
}

/** The controls as the run loop will record them (src/machine/controls.ts): the fingerprint reads `control=to`. */
function plannedControls(c: PipelineRequest['controls']): Pick<Environment, 'controls'> {
  const changes: NonNullable<Environment['controls']> = [
    ...(c?.governor !== undefined ? [{ control: 'governor' as const, file: '', to: c.governor }] : []),
    ...(c?.cpuDmaLatencyUs !== undefined
      ? [{ control: 'cpuDmaLatency' as const, file: '', to: `${c.cpuDmaLatencyUs} µs` }]
      : []),
  ];
  return changes.length > 0 ? { controls: changes } : {};
}

function armFacts(source: FingerprintSource): Record<string, string> {
  const { settingsHash: _runLevel, ...facts } = environmentFingerprint(source).facts;
  return facts;
}

/** One thing that differs between a stored arm's conditions and head's now. */
export interface ConditionDifference {
  /**
   * environment: a fingerprint fact; setting: a postgresql.conf setting a workload or the arm chose;
   * workload: a field of the workload definition; cells: requested client counts without stored samples.
   */
  kind: 'environment' | 'setting' | 'workload' | 'cells';
  /** The fact, setting or field ("kernel", "shared_buffers", "duration"); "clients" for cells. */
  name: string;
  /** The workload concerned (settings, fields, cells). */
  workload?: string;
  /** The values, rendered; undefined when that side does not have it. */
  stored: string | undefined;
  now: string | undefined;
}

/**
 * What differs between a stored arm's conditions and head's (empty: its samples compare with head's).
 * Settings are those the workload and the arm chose (later wins), compared by name: what pgperf writes
 * itself is the same for one pgperf version, and max_connections follows the largest client count, like
 * the client list (left out of the workload comparison for the same reason; the sentinel would see it).
 */
export function conditionDifferences(stored: ArmConditions, now: ArmConditions): ConditionDifference[] {
  const out: ConditionDifference[] = [];
  for (const name of [...new Set([...Object.keys(stored.facts), ...Object.keys(now.facts)])].sort()) {
    if (stored.facts[name] !== now.facts[name]) {
      out.push({ kind: 'environment', name, stored: stored.facts[name], now: now.facts[name] });
    }
  }
  const storedCells = new Set(stored.cells);
  for (const [workload, nowSpec] of Object.entries(now.workloads)) {
    const storedSpec = normalized(stored.workloads[workload]);
    const spec = normalized(nowSpec) ?? {};
    if (storedSpec !== undefined) {
      for (const field of fieldsCompared(storedSpec, spec)) {
        const [a, b] = [storedSpec[field], spec[field]];
        if (canonicalJson(a) !== canonicalJson(b)) {
          out.push({ kind: 'workload', workload, name: field, stored: shown(a), now: shown(b) });
        }
      }
      const before = { ...settingsOf(storedSpec), ...stored.armSettings };
      const after = { ...settingsOf(spec), ...now.armSettings };
      for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
        if (before[name] !== after[name]) {
          out.push({ kind: 'setting', workload, name, stored: before[name], now: after[name] });
        }
      }
    }
    const requested = now.cells.filter((c) => c.startsWith(`${workload}@`));
    if (requested.some((c) => !storedCells.has(c))) {
      const clientsOf = (cells: Iterable<string>) =>
        `[${[...cells]
          .filter((c) => c.startsWith(`${workload}@`))
          .map((c) => Number(c.slice(workload.length + 1)))
          .sort((x, y) => x - y)
          .join(',')}]`;
      out.push({
        kind: 'cells',
        workload,
        name: 'clients',
        stored: clientsOf(storedCells),
        now: clientsOf(requested),
      });
    }
  }
  return out;
}

/** A workload definition with the schema's defaults (a document written before a field existed has none). */
function normalized(spec: unknown): Record<string, unknown> | undefined {
  const parsed = workloadSchema.safeParse(spec);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  return isRecord(spec) ? spec : undefined;
}

/** The fields that change what a measured run measures (fingerprint.ts WORKLOAD_HASH_IGNORED), settings aside. */
function fieldsCompared(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const ignored: readonly string[] = [...WORKLOAD_HASH_IGNORED, 'settings'];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !ignored.includes(k)).sort();
}

function settingsOf(spec: Record<string, unknown>): Record<string, string> {
  const settings = isRecord(spec.settings) ? spec.settings : {};
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, String(v)]));
}

function shown(v: unknown): string | undefined {
  return v === undefined ? undefined : canonicalJson(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function differenceKey(d: ConditionDifference): string {
  return canonicalJson([d.kind, d.workload, d.name, d.stored, d.now]);
}

/** How results.json's baseline.fingerprintMismatch names a difference. */
function differenceName(d: ConditionDifference): string {
  return d.kind === 'workload' ? `${d.workload}.${d.name}` : d.name;
}

/**
 * The differences in one line, settings first named once when every workload shares them, e.g.
 * "settings differ: shared_buffers: stored '128MB', now '1GB'; workload select-only: clients stored [1,2], now [1,4]".
 * `workloads`: the requested workloads.
 */
export function describeDifferences(diffs: ConditionDifference[], workloads: string[]): string {
  const quoted = (v: string | undefined, absent: string) => (v === undefined ? absent : `'${v}'`);
  const parts: string[] = [];
  const facts = diffs.filter((d) => d.kind === 'environment');
  if (facts.length > 0) {
    const list = facts.map(
      (d) => `${d.name}: stored ${quoted(d.stored, '(absent)')}, now ${quoted(d.now, '(absent)')}`,
    );
    parts.push(`environment differs: ${list.join('; ')}`);
  }
  const settings = new Map<string, { d: ConditionDifference; workloads: string[] }>();
  for (const d of diffs.filter((x) => x.kind === 'setting')) {
    const key = canonicalJson([d.name, d.stored, d.now]);
    const entry = settings.get(key) ?? { d, workloads: [] };
    entry.workloads.push(d.workload!);
    settings.set(key, entry);
  }
  if (settings.size > 0) {
    const list = [...settings.values()].map(({ d, workloads: ws }) => {
      const where = ws.length === workloads.length ? '' : ` (workload ${ws.join(', ')})`;
      const unset = "(not set: pgperf's default)";
      return `${d.name}${where}: stored ${quoted(d.stored, unset)}, now ${quoted(d.now, unset)}`;
    });
    parts.push(`settings differ: ${list.join('; ')}`);
  }
  for (const d of diffs.filter((x) => x.kind === 'workload' || x.kind === 'cells')) {
    parts.push(
      `workload ${d.workload}: ${d.name} stored ${d.stored ?? '(absent)'}, now ${d.now ?? '(absent)'}`,
    );
  }
  return parts.join('; ');
}

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
  options: Pick<StoredBaselineOptions, 'ref' | 'store' | 'allowFingerprintMismatch'>,
  now: ArmConditions,
  headLabel: string,
): Promise<StoredBaselineChoice> {
  const workloads = Object.keys(now.workloads);
  const candidates = await candidateRuns(options, workloads);
  const examined: StoredBaselineChoice[] = [];
  for (const entry of candidates.slice(0, MAX_CANDIDATES_EXAMINED)) {
    const doc = await options.store.load(entry.id);
    const arm = baselineArm(doc);
    refuseStoredSettings(entry, doc, arm, options.store.description);
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
 * The stored arm's settings are those the sentinel would start the base install with: each is checked as a
 * workload's or --set's (settingProblem, src/core/results/settings.ts) when the run is read, so a refused
 * setting in a stored run (written by an older pgperf, or edited in the store) stops the comparison before
 * anything starts, not after initdb.
 */
function refuseStoredSettings(entry: StoredRun, doc: RunResult, arm: ArmInfo, store: string): void {
  for (const [name, value] of Object.entries(arm.settingOverrides)) {
    const problem = settingProblem(name, value);
    if (problem === undefined) continue;
    throw new UserError(
      `--baseline stored: the stored run ${entry.id} (measured ${doc.startedAt}) in ${store} records a setting pgperf refuses for its arm ${shownName(arm.label)}: ${problem}. ` +
        'pgperf would start its install with the settings it recorded, so nothing was measured. Choose another stored run with --baseline stored:REF, or remove this one from the store',
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
function describeChoice(choice: StoredBaselineChoice): string {
  const { entry, doc, arm, passedOver } = choice;
  const skipped = passedOver.length
    ? `; passed over ${passedOver.length} newer stored run(s) measured under other conditions (${passedOver
        .map((p) => `${p.id}: ${[...new Set(p.differences.map(differenceName))].join(', ')}`)
        .join('; ')})`
    : '';
  return `baseline: stored run ${entry.id} (measured ${doc.startedAt}), its arm ${arm.label}${skipped}`;
}

/** Stored runs that can serve, newest first: they measured every workload, and match REF when given. */
async function candidateRuns(
  options: Pick<StoredBaselineOptions, 'ref' | 'store'>,
  workloads: string[],
): Promise<StoredRun[]> {
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

/** The arm of a stored run that serves as the baseline: its head (or only) arm. */
function baselineCommit(commits: StoredRun['commits']): { ref?: string; sha?: string } | undefined {
  return commits.length === 1 ? commits[0] : (commits.find((c) => c.arm === 'head') ?? commits.at(-1));
}

export function baselineArm(doc: RunResult): ArmInfo {
  const arms = doc.arms;
  return arms.length === 1 ? arms[0]! : (arms.find((a) => a.label === 'head') ?? arms.at(-1)!);
}

/** The commit an arm measured: its build record's, else the run's recorded source for its label. */
export function commitOf(doc: RunResult, arm: ArmInfo): { ref?: string; sha?: string } {
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
