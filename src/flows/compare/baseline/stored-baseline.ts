/**
 * Stored baselines: measure only head and compare it with the stored samples of an earlier run
 * (`--baseline stored[:REF]`, docs/store.md). This file runs the stage in order; each step is a module:
 *
 * 1. head's conditions are gathered and the stored run chosen once, before the first round
 *    (baseline-conditions.ts, condition-differences.ts, choose-baseline.ts): a refusal comes before anything
 *    is measured;
 * 2. the sentinel re-measures the base install, interleaved with head, against its stored samples
 *    (sentinel.ts); head gets the rest of its rounds alone;
 * 3. the stored base and the new head become one results document (merge-baseline.ts), written, saved and
 *    compared unpaired (analyse() reads `result.baseline`): the rounds were not interleaved.
 *
 * What the adapters parse (stored-baseline-spec.ts) is re-exported here, where they import it from.
 */
import path from 'node:path';
import type { RunResult } from '../../../core/results/result-types.js';
import { writeResults } from '../../../store/write-results.js';
import type { ArmSpec } from '../../../run/run-loop.js';
import { roundsOf } from '../../../drivers/common/workload-fields.js';
import { UserError } from '../../../core/util/errors.js';
import { analyse } from '../../../core/compare/analysis/recorded-analysis.js';
import { withNoiseWarnings } from '../noise/noise-warnings.js';
import { readGateRecord } from '../noise/read-gate-record.js';
import { runnerId } from '../noise/runner-noise.js';
import { captureEnvironment } from '../../../machine/environment.js';
import {
  runPipeline,
  RESULTS_FILE,
  type PipelineDeps,
  type PipelineOutcome,
  type RunArchive,
  type PipelineRequest,
} from '../pipeline/pipeline.js';
import { headConditions } from './baseline-conditions.js';
import { describeDifferences } from './condition-differences.js';
import { changedWhileMeasuring, chooseStoredBaseline, describeChoice } from './choose-baseline.js';
import { runSentinel, sentinelOutcome } from './sentinel.js';
import { baselineInfo, mergeRuns } from './merge-baseline.js';
import type { StoredBaselineOptions } from './stored-baseline-spec.js';

export {
  CLI_STORED_BASELINE_NAMES,
  DEFAULT_SENTINEL_ROUNDS,
  parseBaselineSpec,
  type BaselineSpec,
  type StoredBaselineNames,
  type StoredBaselineOptions,
} from './stored-baseline-spec.js';

/**
 * Runs head only (after a sentinel when the base install still exists) and compares it with the stored
 * baseline. Everything that can be checked without a server is checked first: head's conditions, and the
 * stored run they are compared with. The merged document is written to `req.runDir/results.json` and
 * saved to `archive` when one is given.
 */
export async function runStoredBaseline(
  req: PipelineRequest,
  options: StoredBaselineOptions,
  deps: PipelineDeps,
  archive?: RunArchive,
): Promise<PipelineOutcome> {
  const head = headArm(req);
  // One client drives head in the sentinel and alone (the run loop's default would be the first arm's,
  // base's, in the sentinel): the one the conditions were checked with.
  const clientBinDir = req.clientBinDir ?? head.binDir;
  const now = await headConditions(req, head, clientBinDir, deps);
  const choice = await chooseStoredBaseline(options, now, head.label);
  const { entry: storedEntry, doc: storedDoc, arm: storedBase } = choice;
  deps.logger.info(describeChoice(choice));
  const workloads = Object.keys(now.workloads);
  // What the gate's errors were on this runner, read before head's code runs here (as a same-job run does).
  const gateRecord = await readGateRecord(
    options.store,
    runnerId(await captureEnvironment('')),
    req.workloads.flatMap((w) => w.clients.map((clients) => ({ workload: w.name, clients }))),
    deps.logger,
  );

  const rounds = req.rounds ?? Math.max(...req.workloads.map(roundsOf));
  const sentinelRounds = Math.min(options.sentinelRounds, rounds);
  const warnings: string[] = [];
  if (choice.differences.length > 0) {
    warnings.push(
      `fingerprint mismatch allowed (--allow-fingerprint-mismatch): the baseline ${storedEntry.id} was measured under other conditions: ${describeDifferences(choice.differences, workloads)}`,
    );
  }
  const sentinelRun = await runSentinel(req, head, storedBase, sentinelRounds, clientBinDir, deps);
  const sentinelDoc = 'doc' in sentinelRun ? sentinelRun.doc : undefined;
  if ('skipped' in sentinelRun) warnings.push(sentinelRun.skipped);
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
      deps,
    );
    headOnly = measured.result;
  }
  const reference = sentinelDoc ?? headOnly!;

  const late = changedWhileMeasuring(choice, [sentinelDoc, headOnly], head.label);
  if (late.length > 0) {
    warnings.push(
      `the conditions changed while measuring: ${describeDifferences(late, workloads)}; the comparison mixes them`,
    );
  }
  if (storedDoc.pgperfVersion !== reference.pgperfVersion) {
    warnings.push(
      `the baseline ${storedEntry.id} was measured with pgperf ${storedDoc.pgperfVersion}, this run with ${reference.pgperfVersion}: the settings pgperf writes itself are not compared, only those of the workloads and arms`,
    );
  }
  const sentinel = sentinelOutcome(sentinelRun, storedDoc, storedBase, options.onDrift);
  if (sentinel.status === 'drifted') warnings.push(sentinel.reason);

  const nowDate = options.now?.() ?? new Date(reference.startedAt);
  const mismatch = [...choice.differences, ...late];
  const info = baselineInfo(storedEntry, storedDoc, storedBase, nowDate, mismatch, sentinel);
  const mergedRuns = mergeRuns(
    storedDoc,
    storedBase,
    head.label,
    sentinelDoc,
    headOnly,
    sentinelRounds,
    info,
    warnings,
  );
  const merged = gateRecord ? { ...mergedRuns, gateRecord } : mergedRuns;
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
