/**
 * Measuring one planned run (a cell and an arm in a round): a warm-up on the first visit, then measured
 * attempts until one succeeds or the workload's retries are spent. Each attempt resets the server's state
 * (and, for a cold-start workload, restarts it and drops the OS page cache), reads its counters around the run, samples wait events and the backends' memory, and ends as a sample in the document (saved at
 * once) and a progress line; a server that died is revived, or the run stops.
 */
import type { Workload } from '../drivers/workload.js';
import type { Driver, RunOutcome } from '../drivers/common/driver.js';
import { startDiagnostics } from '../postgres/wait-events.js';
import { takeStatSnapshot } from '../postgres/stat-snapshot.js';
import { contextsAtMs, startRunMemory } from './memory/run-memory.js';
import {
  clientTransactions,
  steadyOutcome,
  type ColdStart,
  type SteadyRecord,
} from '../core/results/steady.js';
import type { RunDiagnostics } from '../core/results/diagnostics.js';
import { backendMemoryMetrics, type BackendMemoryRecord } from '../core/results/memory.js';
import { cellId, type Sample } from '../core/results/result-types.js';
import { errorMessage } from '../core/util/errors.js';
import { deriveSeed, type PlannedRun } from './round-order.js';
import type { ProgressTracker } from './progress.js';
import type { RunJournal } from './journal.js';
import { coldStart } from './cold-start.js';
import { reviveIfDown, withServerDeath, type RunClusters } from './run-clusters.js';
import type { RunDeps } from './run-request.js';

/** What measuring needs: the run's fixed parts, and the document and progress that every run adds to. */
export interface MeasureContext {
  workloadByName: ReadonlyMap<string, Workload>;
  drivers: ReadonlyMap<string, Driver>;
  clusters: RunClusters;
  /** The run's seed: every run's client seed derives from it (a block's runs from the block's seed). */
  seed: number;
  /** Rounds of the main plan, for the progress lines. */
  rounds: number;
  /** Sample wait events and counters during measured runs (RunRequest.diagnostics). */
  diagnostics: boolean;
  progress: ProgressTracker;
  journal: RunJournal;
  deps: RunDeps;
}

/** The confirmation block's samples and seed: its runs stay out of the main `samples`. */
export interface BlockTarget {
  samples: Sample[];
  seed: number;
  /** The block's own rounds, for the progress lines ("confirmation round 2/6"). */
  rounds: number;
}

/** The runs that start with an uncounted warm-up: each (cell, arm)'s first visit, if its workload has one. */
export function firstVisits(
  runs: readonly PlannedRun[],
  workloadByName: ReadonlyMap<string, Workload>,
): Set<PlannedRun> {
  const visited = new Set<string>();
  return new Set(
    runs.filter((run) => {
      const visit = `${cellId(run)}|${run.arm}`;
      const first = !visited.has(visit);
      visited.add(visit);
      return first && workloadByName.get(run.workload)!.warmup > 0;
    }),
  );
}

/**
 * One planned run: its warm-up on a first visit, then measured until it succeeds or its retries are
 * spent.
 */
export async function measureRun(
  ctx: MeasureContext,
  run: PlannedRun,
  warmup: boolean,
  block?: BlockTarget,
): Promise<void> {
  const { logger } = ctx.deps;
  const workload = ctx.workloadByName.get(run.workload)!;
  if (warmup) await runOnce(ctx, run, 'warmup', 1, block);
  for (let attempt = 1; ; attempt++) {
    const out = await runOnce(ctx, run, 'measured', attempt, block);
    if (out.ok) return;
    const what = `${cellId(run)} ${run.arm} ${block ? 'confirmation ' : ''}round ${run.round}`;
    if (attempt > workload.retries) {
      ctx.journal.warn(`${what}: failed ${attempt} times, giving up this run (last: ${out.failureReason})`);
      return;
    }
    ctx.progress.addRun(workload.duration);
    logger.warn(`${what}: retrying (attempt ${attempt + 1} of ${workload.retries + 1})`);
  }
}

/** One run of a planned cell and arm, after the per-run reset; measured runs become samples. */
async function runOnce(
  ctx: MeasureContext,
  run: PlannedRun,
  kind: 'warmup' | 'measured',
  attempt: number,
  block?: BlockTarget,
): Promise<RunOutcome> {
  const { deps, journal, progress } = ctx;
  const { logger } = deps;
  const workload = ctx.workloadByName.get(run.workload)!;
  const driver = ctx.drivers.get(run.workload)!;
  const cluster = ctx.clusters.of(run.arm, run.workload);
  const durationS = kind === 'warmup' ? workload.warmup : workload.duration;
  const randomSeed = deriveSeed(block?.seed ?? ctx.seed, run.round);
  const started = Date.now();
  // A failing TRUNCATE/VACUUM/CHECKPOINT (or cold-start restart) is a failed attempt like a failed run, not
  // a crash. A cold start comes after them: VACUUM itself reads every page of the tables.
  let cold: ColdStart | undefined;
  const maintenance = await driver.beforeRun(cluster).then(
    async () => {
      if (kind === 'measured' && workload.coldStart) cold = await coldStart(cluster, journal);
      return undefined;
    },
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
      journal.warn(
        `${where}: steady metrics not measured (counter snapshot ${when} the run failed: ${errorMessage(e)})`,
      );
      return undefined;
    });
  const steadyBefore = maintenance || kind !== 'measured' ? undefined : await snapshot('before');
  // Wait events and counters of measured runs only; a sampler that cannot start never fails the run.
  const sampler =
    maintenance || kind !== 'measured' || !ctx.diagnostics
      ? undefined
      : await startDiagnostics(cluster.connection).catch((e: unknown) => {
          logger.debug(`diagnostics not sampled: ${errorMessage(e)}`);
          return undefined;
        });
  // The backends' private memory, in every measured run (run-memory.ts: never fails the run).
  const memorySampler =
    maintenance || kind !== 'measured'
      ? undefined
      : await startRunMemory(cluster.connection, {
          contexts: { logFile: cluster.logFile, atMs: contextsAtMs(durationS) },
        });
  let out: RunOutcome;
  let diagnostics: RunDiagnostics | undefined;
  let memory: BackendMemoryRecord | undefined;
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
    memory = await memorySampler?.stop();
  }
  deps.signal?.throwIfAborted();
  let steady: SteadyRecord | undefined;
  if (steadyBefore && out.ok) {
    const steadyAfter = await snapshot('after');
    const outcome = steadyAfter && steadyOutcome(steadyBefore, steadyAfter, clientTransactions(out.counts));
    if (outcome) {
      steady = cold ? { ...outcome.record, cold } : outcome.record;
      out = { ...out, metrics: { ...out.metrics, ...outcome.metrics } };
    }
  }
  if (memory && out.ok) out = { ...out, metrics: { ...out.metrics, ...backendMemoryMetrics(memory) } };
  if (!out.ok) out = await withServerDeath(cluster, out);
  progress.finished(durationS, (Date.now() - started) / 1000);
  const { result } = journal;
  if (!block) result.plan.executed.push({ ...run, kind, attempt, status: out.ok ? 'ok' : 'failed' });
  if (kind === 'measured') {
    (block?.samples ?? result.samples).push({
      ...toSample(run, attempt, randomSeed, out),
      ...(diagnostics ? { diagnostics } : {}),
      ...(steady ? { steady } : {}),
      ...(memory ? { memory } : {}),
    });
    await journal.save();
  }
  logger.info(
    progress.line({
      kind,
      round: run.round,
      rounds: block?.rounds ?? ctx.rounds,
      ...(block ? { confirmation: true } : {}),
      cell: cellId(run),
      arm: run.arm,
      tps: out.metrics.tps,
      failure: out.failureReason,
    }),
  );
  if (!out.ok) await reviveIfDown(cluster, journal.warn);
  return out;
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
