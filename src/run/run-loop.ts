/**
 * The run loop: set up one cluster per arm (and per distinct data set), load data once, then run the
 * rounds in the planned interleaved order, writing the results document after every run so that an
 * interrupted or failing run keeps everything it measured. Servers are always stopped.
 */
import { copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { BuildRecord } from '../postgres/builds/build-record.js';
import type { Workload } from '../drivers/workload.js';
import { inspectBinDir, PgCluster, type Connection } from '../postgres/cluster/cluster.js';
import type { AdaptivePlan } from '../core/compare/adaptive.js';
import { checkPlan } from '../core/compare/power.js';
import { metricOption } from '../core/compare/metric-option.js';
import { settingsHash } from '../postgres/cluster/conf.js';
import { resolveRunAs } from '../postgres/cluster/run-as.js';
import type { Driver, RunOutcome } from '../drivers/common/driver.js';
import { createDriver, dataSetShape } from '../drivers/registry.js';
import { captureEnvironment } from '../machine/environment.js';
import { preflight, preflightFacts } from '../machine/preflight.js';
import { startDiagnostics } from '../postgres/wait-events.js';
import { takeStatSnapshot } from '../postgres/stat-snapshot.js';
import {
  clientTransactions,
  steadyOutcome,
  type StatSnapshot,
  type SteadyRecord,
} from '../core/results/steady.js';
import type { RunDiagnostics } from '../core/results/diagnostics.js';
import { environmentFingerprint } from '../machine/fingerprint.js';
import type { ShardInfo } from './shards.js';
import { sealingSink } from './shard-digest.js';
import {
  RESULTS_SCHEMA_VERSION,
  cellId,
  type ArmInfo,
  type Environment,
  type RunResult,
  type RunSource,
  type Sample,
  type CompiledCodeComparison,
} from '../core/results/types.js';
import { newRunId } from './run-id.js';
import { finishOnForcedExit, type ResultSink } from './sink.js';
import type { AnalysisSettings } from '../core/results/types.js';
import { UserError, errorMessage } from '../core/util/errors.js';
import { FileWriteError } from '../machine/os/atomic-write.js';
import { makeDirectory } from '../machine/os/writable-dir.js';
import type { Logger } from '../core/util/logger.js';
import { runnerAs, type ProcessRunner } from '../machine/os/process.js';
import { PGPERF_VERSION } from '../core/version.js';
import { deriveSeed, newSeed, planRounds, type ArmOrder, type PlannedRun } from './plan.js';
import { AdaptiveControl } from './adaptive-control.js';
import { compareRun } from '../core/compare/compare-run.js';
import type { InstructionsRecord } from '../core/results/instructions.js';
import { DEFAULT_CONFIRM_ROUNDS, confirmationTargets } from '../core/compare/confirmation.js';
import { ProgressTracker } from './progress.js';
import { pinnedRunner, workloadCpuPlans } from '../machine/pinning.js';
import {
  applyControls,
  checkControls,
  wantsControls,
  type AppliedControls,
  type ControlRequest,
} from '../machine/controls.js';

export interface ArmSpec {
  label: string;
  binDir: string;
  /** Settings for this arm only; normally empty so that every arm gets the same postgresql.conf. */
  settings: Record<string, string>;
  /** How pgperf built this arm, when it did. */
  build?: BuildRecord;
}

export interface RunRequest {
  arms: ArmSpec[];
  workloads: Workload[];
  /** Replaces every workload's rounds. */
  rounds?: number;
  /** Replaces every workload's duration; warm-ups are capped at it. */
  durationS?: number;
  seed?: number;
  order: ArmOrder;
  /** Bin dir of the client binaries; default: the first arm's. */
  clientBinDir?: string;
  /** Unprivileged user for the server when pgperf is root. */
  runAs?: string;
  /** Receives the results document after every measured run and at the end. */
  sink: ResultSink;
  /** Recorded in the results, so that every later analysis of them uses the same settings. */
  analysis: AnalysisSettings;
  /** Where server logs are copied before the clusters are removed. */
  logsDir?: string;
  dataChecksums: boolean;
  /** Parent of the clusters' private directories (default: the OS temp dir). */
  tmpDir?: string;
  /** Recorded as-is in the results (commits, PR). */
  source?: RunSource;
  /** The instruction phase's counts (flows/compare/instruction-phase.ts), kept in every document written. */
  instructions?: InstructionsRecord;
  /** Each head's compiled code against base's (src/postgres/builds/compiled-code.ts), recorded as is. */
  compiledCode?: CompiledCodeComparison[];
  /**
   * Why no timed round is needed, when none is: every head runs base's compiled code with base's settings
   * (src/core/compare/same-code.ts), or the instruction counts alone decide (--metric instructions). The
   * document is written complete with no sample, and no server is started.
   */
  skipTimedRounds?: string;
  /**
   * This run is a part of a larger one (a stored baseline's sentinel rounds and head's remaining rounds): its
   * rounds are not the plan the user chose, so the plan is not checked here (the whole one was, before).
   */
  partOfRun?: boolean;
  /** The arms are one install measured alike (A/A): recorded as `calibration: true`. */
  calibration?: boolean;
  /**
   * Rounds of the confirmation block that re-measures regressed cells after the main rounds, on restarted
   * servers in a new arm order (DEFAULT_CONFIRM_ROUNDS; 0 disables). Not for calibration runs.
   */
  confirmRounds?: number;
  /** Adaptive rounds: looks after blocks of rounds, decided cells stop (replaces every workload's rounds
   * by the plan's maxRounds). */
  adaptive?: { plan: AdaptivePlan; timeBudgetS?: number };
  /** Seconds of the machine check before the run (load, steal, busy processes); 0 skips the window. */
  preflightWindowS?: number;
  /** Refuse to measure when the machine check says "not fit for benchmarking". */
  strictPreflight?: boolean;
  /** Sample wait events and counters during every measured run (default true). */
  diagnostics?: boolean;
  /** This run is one shard of a comparison split over machines (recorded in plan.shard). */
  shard?: ShardInfo;
  /**
   * Opt-in machine controls (--cpu-dma-latency, --governor) held over the measured runs: checked before any
   * server starts, applied after the clusters are set up, restored when the run ends however it ends.
   */
  controls?: ControlRequest;
}

export interface RunDeps {
  runner: ProcessRunner;
  logger: Logger;
  /** Aborting stops the current run, keeps what was measured and cleans up. */
  signal?: AbortSignal;
  cpuCount?: number;
  /** The PATH to find taskset/numactl on, for workloads with `cpus` (the adapters pass theirs). */
  searchPath?: string;
  /** Reads a server's counters around each measured run (default takeStatSnapshot; tests make it fail). */
  statSnapshot?: (connection: Connection) => Promise<StatSnapshot>;
}

/**
 * Workloads that share tool, data shape (pgbench: scale and init options; sysbench: tables, table size,
 * script family) and settings share one cluster (and data set) per arm.
 */
interface DataSet {
  name: string;
  workloads: Workload[];
  maxClients: number;
}

export async function runBenchmark(req: RunRequest, deps: RunDeps): Promise<RunResult> {
  const { logger, runner } = deps;
  validateRequest(req);
  const cpuCount = deps.cpuCount ?? os.availableParallelism();
  const workloads = req.workloads.map((w) => applyOverrides(w, req));

  // Everything that can be checked is checked before any server starts.
  const controlRequest = req.controls && wantsControls(req.controls) ? req.controls : undefined;
  await checkRunControls(req.controls, logger);
  const versions = await Promise.all(req.arms.map((a) => inspectBinDir(a.binDir, `arm ${a.label}`, runner)));
  const clientBinDir = req.clientBinDir ?? req.arms[0]!.binDir;
  // Pinning (workload `cpus`): the server under the plan's server CPUs, the client under its client CPUs,
  // and pgbench -j follows the client CPU count.
  const cpuPlans = await workloadCpuPlans(workloads, deps.searchPath ?? '');
  const runAs = await resolveRunAs(req.runAs, deps);
  if (runAs) logger.info(`running PostgreSQL and the clients as user "${runAs.name}" (pgperf runs as root)`);
  // The clients run as the server's unprivileged user too: a workload's scripts (and their \shell
  // commands) get that user's rights, never root's.
  const clientRunner = runAs ? runnerAs(runner, runAs) : runner;
  const drivers = new Map<string, Driver>(
    workloads.map((w) => {
      const plan = cpuPlans.get(w.name);
      const clientDeps = plan
        ? { cpuCount: plan.client.length, runner: pinnedRunner(clientRunner, plan.clientPrefix) }
        : { cpuCount, runner: clientRunner };
      return [
        w.name,
        createDriver(w, {
          clientBinDir,
          ...clientDeps,
          logger,
          searchPath: deps.searchPath ?? '',
          ...(runAs ? { clientUser: runAs } : {}),
        }),
      ];
    }),
  );
  // One client per tool drives every arm; each, and every file a workload names, is checked before any
  // server starts.
  const driverPerTool = new Map(workloads.map((w) => [w.tool, drivers.get(w.name)!]));
  const clientInfos = await Promise.all([...driverPerTool.values()].map((d) => d.client()));
  for (const driver of drivers.values()) await driver.checkFiles?.();

  const seed = req.seed ?? newSeed();
  const dataSets = groupDataSets(workloads);
  const cells = workloads.flatMap((w) =>
    w.clients.map((clients) => ({ workload: w.name, clients, rounds: w.rounds })),
  );
  const rounds = planRounds({ cells, arms: req.arms.map((a) => a.label), order: req.order, seed });
  const workloadByName = new Map(workloads.map((w) => [w.name, w]));

  const arms: ArmInfo[] = req.arms.map((a, i) => ({
    label: a.label,
    binDir: a.binDir,
    serverVersion: versions[i]!.text,
    settingOverrides: a.settings,
    ...(a.build ? { build: a.build } : {}),
  }));
  const startedAt = new Date();
  const result: RunResult = {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    pgperfVersion: PGPERF_VERSION,
    runId: newRunId(startedAt),
    status: 'running',
    startedAt: startedAt.toISOString(),
    updatedAt: new Date().toISOString(),
    environment: await machineCheck(req, logger),
    ...(cpuPlans.size
      ? {
          pinning: Object.fromEntries(
            [...cpuPlans].map(([name, p]) => [
              name,
              { server: p.server, client: p.client, tool: p.tool, warnings: p.warnings },
            ]),
          ),
        }
      : {}),
    arms,
    clients: clientInfos,
    workloads: Object.fromEntries(workloads.map((w) => [w.name, w])),
    analysis: req.analysis,
    plan: {
      seed,
      order: req.order,
      rounds: rounds.length,
      cells: cells.map(({ workload, clients }) => ({ workload, clients })),
      executed: [],
      // A copy: the samples digest is written into it with every write (sealingSink).
      ...(req.shard ? { shard: { ...req.shard } } : {}),
    },
    ...(req.source ? { source: req.source } : {}),
    ...(req.calibration ? { calibration: true as const } : {}),
    ...(req.instructions ? { instructions: req.instructions } : {}),
    ...(req.compiledCode ? { compiledCode: req.compiledCode } : {}),
    samples: [],
    warnings: [],
  };
  // A shard's document carries the digest of its samples, rewritten with every write (fleet/shard-digest.ts).
  const sink = req.shard ? sealingSink(req.sink) : req.sink;
  // A forced exit (a second signal, a crash) never reaches the finally below: the cleanup registry then
  // finishes the document (interrupted or failed, the reserve removed) before it stops the servers.
  const unregisterForcedEnd = finishOnForcedExit(sink, result, deps.signal);
  /** The sink's failure to keep the document (a full disk): it stops the run, which then ends 'failed'. */
  let writeFailure: { error: unknown } | undefined;
  const save = async () => {
    result.updatedAt = new Date().toISOString();
    await sink.update(result).catch((e: unknown) => {
      writeFailure = { error: e };
      throw e;
    });
  };
  const warn = (message: string) => {
    result.warnings.push(message);
    logger.warn(message);
  };

  const clusters = new Map<string, PgCluster>(); // key: arm label + data set name
  let controls: AppliedControls | undefined;
  const clusterKey = (arm: string, dataSet: string) => `${arm}\u0000${dataSet}`;
  const dataSetOf = new Map(dataSets.flatMap((d) => d.workloads.map((w) => [w.name, d] as const)));
  try {
    if (req.skipTimedRounds) {
      logger.info(`no timed rounds: ${req.skipTimedRounds}`);
      // What was run, not what the workloads would have asked for: every report says "0 rounds".
      result.plan.rounds = 0;
      result.fingerprint = environmentFingerprint(result);
      result.status = 'complete';
      return result;
    }
    await logger.group('Setting up clusters', async () => {
      for (const dataSet of dataSets) {
        for (const arm of req.arms) {
          deps.signal?.throwIfAborted();
          const w = dataSet.workloads[0]!;
          const label = dataSets.length > 1 ? `${arm.label}/${dataSet.name}` : arm.label;
          logger.info(`arm ${label}: initdb, start, load (${versions[req.arms.indexOf(arm)]!.text})`);
          const serverPrefix = cpuPlans.get(w.name)?.serverPrefix;
          const cluster = await PgCluster.create(
            {
              label,
              ...(serverPrefix ? { cpuPrefix: serverPrefix } : {}),
              binDir: arm.binDir,
              parentDir: req.tmpDir,
              conf: {
                maxClients: dataSet.maxClients,
                workloadSettings: w.settings,
                armSettings: arm.settings,
              },
              runAs,
              dataChecksums: req.dataChecksums,
            },
            deps,
          );
          clusters.set(clusterKey(arm.label, dataSet.name), cluster);
          await cluster.start();
          await drivers.get(w.name)!.prepare(cluster, deps.signal);
        }
      }
    });
    const allSettings = [...clusters.entries()].map(([k, c]) => [k, settingsHash(c.settings)]);
    result.environment.settingsHash = createHash('sha256')
      .update(JSON.stringify(allSettings))
      .digest('hex')
      .slice(0, 16);
    // The controls hold over the measured runs (and their warm-ups), not over initdb and the data load.
    if (controlRequest) {
      controls = await applyControls(controlRequest, { ...controlRequest, logger });
      result.environment.controls = controls.changes;
    }
    result.fingerprint = environmentFingerprint(result);
    await save();

    const plannedRuns = rounds.flat();
    // The first visit of each (cell, arm) starts with an uncounted warm-up run.
    const firstVisits = (runs: readonly PlannedRun[]): Set<PlannedRun> => {
      const visited = new Set<string>();
      return new Set(
        runs.filter((run) => {
          const visit = `${cellId(run)}|${run.arm}`;
          const first = !visited.has(visit);
          visited.add(visit);
          return first && workloadByName.get(run.workload)!.warmup > 0;
        }),
      );
    };
    const warmupBefore = firstVisits(plannedRuns);
    const plannedSeconds =
      plannedRuns.reduce((s, r) => s + workloadByName.get(r.workload)!.duration, 0) +
      [...warmupBefore].reduce((s, r) => s + workloadByName.get(r.workload)!.warmup, 0);
    const progress = new ProgressTracker(plannedRuns.length + warmupBefore.size, plannedSeconds);
    // Say before spending the time when the plan cannot reach a verdict (issue: power before time).
    // Holm's family: every head arm x cell x gated metric (src/flows/compare/plan-check.ts refuses what cannot
    // reach alpha at all, unless forced; here the run only warns).
    const hypotheses =
      Math.max(1, req.arms.length - 1) *
      workloads.reduce(
        (n, w) => n + w.clients.length * (metricOption(req.analysis) ? 1 : w.metrics.length),
        0,
      );
    for (const w of req.partOfRun ? [] : workloads) {
      const check = checkPlan({
        rounds: w.rounds,
        cells: hypotheses,
        alpha: req.analysis.alpha,
        thresholdPct: w.threshold ?? req.analysis.thresholdPct,
      });
      for (const message of check.warnings) warn(`workload ${w.name}: ${message}`);
    }
    logger.info(
      `plan: ${cells.length} cells x ${req.arms.length} arms x ${rounds.length} rounds = ${plannedRuns.length} runs, order ${req.order}, seed ${seed}`,
    );

    /** One run of a planned cell and arm, after the per-run reset; measured runs become samples. */
    const execute = async (
      run: PlannedRun,
      kind: 'warmup' | 'measured',
      attempt: number,
      block?: BlockTarget,
    ): Promise<RunOutcome> => {
      const workload = workloadByName.get(run.workload)!;
      const driver = drivers.get(run.workload)!;
      const cluster = clusters.get(clusterKey(run.arm, dataSetOf.get(run.workload)!.name))!;
      const durationS = kind === 'warmup' ? workload.warmup : workload.duration;
      const randomSeed = deriveSeed(block?.seed ?? seed, run.round);
      const started = Date.now();
      // A failing TRUNCATE/VACUUM/CHECKPOINT is a failed attempt like a failed run, not a crash.
      const maintenance = await driver.beforeRun(cluster).then(
        () => undefined,
        (e: unknown) => {
          deps.signal?.throwIfAborted();
          return maintenanceFailure(e, started);
        },
      );
      // Steady per-transaction metrics: the server's counters right before and right after the measured
      // run. A snapshot that fails loses those metrics for this sample (with a warning), never the run.
      const where = `${cellId(run)} ${run.arm} ${block ? 'confirmation ' : ''}round ${run.round}`;
      const snapshot = (when: string) =>
        (deps.statSnapshot ?? takeStatSnapshot)(cluster.connection).catch((e: unknown) => {
          warn(
            `${where}: steady metrics not measured (counter snapshot ${when} the run failed: ${errorMessage(e)})`,
          );
          return undefined;
        });
      const steadyBefore = maintenance || kind !== 'measured' ? undefined : await snapshot('before');
      // Wait events and counters of measured runs only; a sampler that cannot start never fails the run.
      const sampler =
        maintenance || kind !== 'measured' || req.diagnostics === false
          ? undefined
          : await startDiagnostics(cluster.connection).catch((e: unknown) => {
              logger.debug(`diagnostics not sampled: ${errorMessage(e)}`);
              return undefined;
            });
      let out: RunOutcome;
      let diagnostics: RunDiagnostics | undefined;
      try {
        out =
          maintenance ??
          (await driver.run(cluster, {
            clients: run.clients,
            durationS,
            seed: randomSeed,
            signal: deps.signal,
          }));
      } finally {
        diagnostics = await sampler?.stop().catch(() => undefined);
      }
      deps.signal?.throwIfAborted();
      let steady: SteadyRecord | undefined;
      if (steadyBefore && out.ok) {
        const steadyAfter = await snapshot('after');
        const outcome =
          steadyAfter && steadyOutcome(steadyBefore, steadyAfter, clientTransactions(out.counts));
        if (outcome) {
          steady = outcome.record;
          out = { ...out, metrics: { ...out.metrics, ...outcome.metrics } };
        }
      }
      if (!out.ok) out = await withServerDeath(cluster, out);
      progress.finished(durationS, (Date.now() - started) / 1000);
      if (!block) result.plan.executed.push({ ...run, kind, attempt, status: out.ok ? 'ok' : 'failed' });
      if (kind === 'measured') {
        (block?.samples ?? result.samples).push({
          ...toSample(run, attempt, randomSeed, out),
          ...(diagnostics ? { diagnostics } : {}),
          ...(steady ? { steady } : {}),
        });
        await save();
      }
      logger.info(
        progress.line({
          kind,
          round: run.round,
          rounds: block?.rounds ?? rounds.length,
          ...(block ? { confirmation: true } : {}),
          cell: cellId(run),
          arm: run.arm,
          tps: out.metrics.tps,
          failure: out.failureReason,
        }),
      );
      if (!out.ok) await reviveIfDown(cluster, warn);
      return out;
    };

    /** One planned run: its warm-up on a first visit, then measured until it succeeds or its retries are spent. */
    const measure = async (run: PlannedRun, warmup: boolean, block?: BlockTarget) => {
      const workload = workloadByName.get(run.workload)!;
      if (warmup) await execute(run, 'warmup', 1, block);
      for (let attempt = 1; ; attempt++) {
        const out = await execute(run, 'measured', attempt, block);
        if (out.ok) return;
        const what = `${cellId(run)} ${run.arm} ${block ? 'confirmation ' : ''}round ${run.round}`;
        if (attempt > workload.retries) {
          warn(`${what}: failed ${attempt} times, giving up this run (last: ${out.failureReason})`);
          return;
        }
        progress.addRun(workload.duration);
        logger.warn(`${what}: retrying (attempt ${attempt + 1} of ${workload.retries + 1})`);
      }
    };
    // As analyse() judges the document: one metric everywhere only when one was named (metricOption).
    const judging = {
      thresholdPct: req.analysis.thresholdPct,
      ...(metricOption(req.analysis) ? { metric: metricOption(req.analysis)! } : {}),
      ...(req.analysis.steadyPass !== undefined ? { steadyPass: req.analysis.steadyPass } : {}),
    };

    const adaptive = req.adaptive
      ? new AdaptiveControl(req.adaptive.plan, judging, {
          ...(req.adaptive.timeBudgetS !== undefined ? { timeBudgetS: req.adaptive.timeBudgetS } : {}),
          estimatedRoundS: plannedSeconds / Math.max(1, rounds.length),
        })
      : null;
    if (adaptive) {
      const p = adaptive.plan;
      logger.info(
        `adaptive: looks at ${p.schedule.join(', ')} rounds (${p.spending} alpha spending, alpha ${p.alpha}); decided cells stop`,
      );
    }
    /**
     * Confirm before accusing: the cells that regressed after the main rounds (as the analysis of the
     * document will judge them) are measured again in a block of their own rounds, base and the regressed
     * head arms only, after a restart of their servers (cold shared buffers, new postmaster; the data set
     * is kept) and in a new arm order (arms reversed, a new seed). Stored apart (result.confirmation).
     */
    const confirmationBlock = async () => {
      const blockRounds = req.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS;
      if (blockRounds <= 0 || req.calibration || req.arms.length < 2) return;
      const lastLook = result.adaptive?.looks.at(-1)?.look;
      const targets = confirmationTargets(
        compareRun(result, {
          alpha: req.analysis.alpha,
          ...judging,
          ...(req.adaptive && lastLook ? { adaptive: { plan: req.adaptive.plan, look: lastLook } } : {}),
        }),
      );
      if (targets.length === 0) return;
      const blockSeed = deriveSeed(seed, CONFIRMATION_SEED_ROUND);
      const blockCells = [
        ...new Map(targets.map((t) => [cellId(t), { workload: t.workload, clients: t.clients }])).values(),
      ];
      const blockArms = [req.arms[0]!.label, ...new Set(targets.map((t) => t.head))].reverse();
      const block = { samples: [] as Sample[], seed: blockSeed, rounds: blockRounds };
      result.confirmation = { rounds: blockRounds, seed: blockSeed, cells: targets, samples: block.samples };
      const names = targets.map((t) => `${t.head}:${cellId(t)}`).join(', ');
      logger.info(
        `confirmation: ${names} regressed; measuring ${blockRounds} more round(s) of base and head on restarted servers, arms in a new order`,
      );
      await logger.group('Confirmation block: restarting servers', async () => {
        const sets = new Set(blockCells.map((c) => dataSetOf.get(c.workload)!.name));
        for (const arm of blockArms) {
          for (const set of sets) {
            deps.signal?.throwIfAborted();
            const cluster = clusters.get(clusterKey(arm, set))!;
            await cluster.stop();
            await cluster.start();
          }
        }
      });
      const planned = planRounds({
        cells: blockCells.map((c) => ({ ...c, rounds: blockRounds })),
        arms: blockArms,
        order: req.order,
        seed: blockSeed,
      });
      const warmups = firstVisits(planned.flat());
      for (const run of planned.flat()) progress.addRun(workloadByName.get(run.workload)!.duration);
      for (const run of warmups) progress.addRun(workloadByName.get(run.workload)!.warmup);
      for (const [r, roundRuns] of planned.entries()) {
        await logger.group(`Confirmation round ${r + 1} of ${planned.length}`, async () => {
          for (const run of roundRuns) {
            deps.signal?.throwIfAborted();
            await measure(run, warmups.has(run), block);
          }
        });
      }
    };
    let roundsDone = 0;
    for (const [r, roundRuns] of rounds.entries()) {
      const stop = adaptive?.beforeRound(result, r + 1, (line) => logger.info(line));
      if (stop) {
        warn(`adaptive: stopped before round ${r + 1}: ${stop}`);
        break;
      }
      await logger.group(`Round ${r + 1} of ${rounds.length}`, async () => {
        for (const run of roundRuns) {
          deps.signal?.throwIfAborted();
          if (adaptive && !adaptive.isOpen(run)) continue;
          await measure(run, warmupBefore.has(run));
        }
      });
      roundsDone = r + 1;
    }
    adaptive?.finish(result, roundsDone, (line) => logger.info(line));
    await confirmationBlock();
    result.status = 'complete';
  } catch (e) {
    const interrupted = deps.signal?.aborted === true;
    // A results write that failed stops the run like any failure, but it is no crash: the run ends
    // 'failed' with the reason, the servers are stopped, the final write lands in the room the sink kept,
    // and the caller gets the result (an incomplete run, exit 3), not an exception.
    const writeFailed = !interrupted && writeFailure !== undefined && writeFailure.error === e;
    result.status = interrupted ? 'interrupted' : 'failed';
    result.stopReason = interrupted ? 'interrupted (signal)' : errorMessage(e);
    if (writeFailed) {
      logger.error(`stopping the run, keeping the samples so far: ${errorMessage(e)}`);
    } else if (!interrupted) throw e;
  } finally {
    await controls?.restore();
    await releaseClusters(clusters, req.logsDir, logger);
    result.updatedAt = new Date().toISOString();
    await sink
      .finish(result)
      .catch((e: unknown) =>
        logger.error(
          e instanceof FileWriteError ? e.message : `could not write ${sink.description}: ${errorMessage(e)}`,
        ),
      );
    unregisterForcedEnd();
  }
  return result;
}

/**
 * Checks the run's machine controls (values, files, writability, the governor among the driver's) without
 * changing anything; the adapters' pipeline calls it before a build, the run loop before any server starts.
 */
export async function checkRunControls(controls: ControlRequest | undefined, logger: Logger): Promise<void> {
  if (controls && wantsControls(controls)) await checkControls(controls, { ...controls, logger });
}

/**
 * The environment with the machine check: its report is recorded (environment.preflight, and flat
 * "preflight.*" facts, which the fingerprint does not read: load and steal change between runs), its
 * verdict logged; with strictPreflight a machine that is not fit is refused before any server starts.
 */
async function machineCheck(req: RunRequest, logger: Logger): Promise<Environment> {
  const environment = await captureEnvironment('');
  const report = await preflight({ windowS: req.preflightWindowS ?? 1 });
  environment.preflight = report;
  Object.assign(environment.facts, preflightFacts(report));
  const problems = report.facts.filter((f) => f.verdict !== 'ok');
  logger.info(
    `machine: ${report.verdict}${problems.length ? ` (${problems.map((f) => `${f.name}: ${f.value} [${f.verdict}]`).join('; ')})` : ''}; pgperf doctor says how to fix each`,
  );
  if (req.strictPreflight && report.verdict === 'not fit for benchmarking') {
    const bad = report.facts.filter((f) => f.verdict === 'bad');
    throw new UserError(
      `--strict: this machine is not fit for benchmarking: ${bad.map((f) => `${f.name} ${f.value}${f.fix ? ` (fix: ${f.fix})` : ''}`).join('; ')}`,
    );
  }
  return environment;
}

function toSample(run: PlannedRun, attempt: number, randomSeed: number, out: RunOutcome): Sample {
  return {
    round: run.round,
    workload: run.workload,
    clients: run.clients,
    arm: run.arm,
    attempt,
    status: out.ok ? 'ok' : 'failed',
    ...(out.failureReason ? { failureReason: out.failureReason } : {}),
    startedAt: out.startedAt,
    endedAt: out.endedAt,
    randomSeed,
    metrics: out.metrics,
    counts: out.counts,
    progress: out.progress,
    command: out.command,
    exitCode: out.exitCode,
  };
}

/** Arm labels and workload names, checked before anything starts (also before the instruction phase). */
export function validateRequest(req: Pick<RunRequest, 'arms' | 'workloads'>): void {
  if (req.arms.length === 0) throw new UserError('no arms: give at least one --arm LABEL=BINDIR');
  const labels = new Set<string>();
  for (const arm of req.arms) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(arm.label)) {
      throw new UserError(
        `--arm ${arm.label}: a label is letters, digits, ".", "_" and "-" (e.g. base, head)`,
      );
    }
    if (labels.has(arm.label))
      throw new UserError(`--arm ${arm.label}: the label is given twice; labels must be unique`);
    labels.add(arm.label);
  }
  if (req.workloads.length === 0) throw new UserError('no workloads: give at least one --workload FILE');
  const names = new Set<string>();
  for (const w of req.workloads) {
    if (names.has(w.name))
      throw new UserError(`workload name "${w.name}" is used by two workload files; names must be unique`);
    names.add(w.name);
  }
}

function applyOverrides(w: Workload, req: RunRequest): Workload {
  const duration = req.durationS ?? w.duration;
  const rounds = req.adaptive?.plan.maxRounds ?? req.rounds ?? w.rounds;
  return { ...w, duration, warmup: Math.min(w.warmup, duration), rounds };
}

function groupDataSets(workloads: Workload[]): DataSet[] {
  const byKey = new Map<string, DataSet>();
  for (const w of workloads) {
    const key = JSON.stringify([w.tool, dataSetShape(w), Object.entries(w.settings).sort()]);
    const existing = byKey.get(key);
    if (existing) {
      existing.workloads.push(w);
      existing.maxClients = Math.max(existing.maxClients, ...w.clients);
    } else {
      byKey.set(key, { name: w.name, workloads: [w], maxClients: Math.max(...w.clients) });
    }
  }
  return [...byKey.values()];
}

/** The confirmation block's samples and seed: its runs stay out of the main `samples`. */
interface BlockTarget {
  samples: Sample[];
  seed: number;
  /** The block's own rounds, for the progress lines ("confirmation round 2/6"). */
  rounds: number;
}

/** deriveSeed(seed, this) seeds the confirmation block: a round number no main plan reaches. */
const CONFIRMATION_SEED_ROUND = 0x7fff_0001;

/** Restarts of one cluster after its server died, before the run stops. */
export const MAX_RESTARTS_PER_CLUSTER = 3;

/** A failed attempt for a pre-run maintenance step that failed (no measurement was taken). */
function maintenanceFailure(e: unknown, started: number): RunOutcome {
  const at = new Date(started).toISOString();
  return {
    ok: false,
    failureReason: `pre-run maintenance failed: ${errorMessage(e).split('\n')[0]}`,
    metrics: {},
    counts: {},
    progress: [],
    command: [],
    exitCode: null,
    startedAt: at,
    endedAt: new Date().toISOString(),
  };
}

/** A failed run whose server died says so, with the postmaster's pid and the server log's tail. */
async function withServerDeath(cluster: PgCluster, out: RunOutcome): Promise<RunOutcome> {
  if (await cluster.isRunning()) return out;
  const pid = await cluster.postmasterPid();
  const reason = `${out.failureReason ?? 'failed'}; the server died (postmaster pid ${pid ?? '?'} is gone)`;
  return { ...out, failureReason: `${reason}; server log tail:\n${await cluster.logTail(15)}` };
}

/**
 * After a failed run: if the server died, say so with its log tail and start it again, up to
 * MAX_RESTARTS_PER_CLUSTER times; then the run stops with the reason.
 */
async function reviveIfDown(cluster: PgCluster, warn: (m: string) => void): Promise<void> {
  if (await cluster.isRunning()) return;
  const logTail = await cluster.logTail(15);
  if (cluster.restarts >= MAX_RESTARTS_PER_CLUSTER) {
    throw new UserError(
      `arm ${cluster.spec.label}: the server died again after ${cluster.restarts} restarts; stopping the run ` +
        `(the samples so far are kept). Server log tail (${cluster.logFile}):\n${logTail}`,
    );
  }
  warn(
    `arm ${cluster.spec.label}: the server died during a run; restarting it (restart ${cluster.restarts + 1} of at most ${MAX_RESTARTS_PER_CLUSTER}). Log tail:\n${logTail}`,
  );
  await cluster.restartAfterCrash();
}

async function releaseClusters(
  clusters: Map<string, PgCluster>,
  logsDir: string | undefined,
  logger: Logger,
): Promise<void> {
  for (const cluster of clusters.values()) {
    try {
      if (logsDir) {
        await makeDirectory(logsDir);
        await copyFile(
          cluster.logFile,
          path.join(logsDir, `${cluster.spec.label.replace(/\//g, '-')}.server.log`),
        ).catch(() => {});
      }
      await cluster.destroy();
    } catch (e) {
      logger.warn(`arm ${cluster.spec.label}: cleanup failed: ${errorMessage(e)} (directory ${cluster.dir})`);
    }
  }
}
