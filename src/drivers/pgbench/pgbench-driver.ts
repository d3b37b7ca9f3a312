/** The pgbench driver: data load, per-run reset, one measured run -> sample fields. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '../../machine/os/cleanup.js';
import type { PgbenchWorkload } from './pgbench-workload.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import {
  describeExit,
  probeOptions,
  tail,
  type ChildUser,
  type ProcessRunner,
} from '../../machine/os/process.js';
import type { ClientInfo } from '../../core/results/result-types.js';
import {
  measuredRun,
  type BenchTarget,
  type Driver,
  type RunOutcome,
  type RunSpec,
} from '../common/driver.js';
import { RUN_GRACE_S, judgeInput, resetBeforeRun, runOutcome } from '../common/shared.js';
import {
  initArgs,
  measureArgs,
  needsTransactionLog,
  pipelinedSelectScript,
  writesHistory,
} from './pgbench-command.js';
import { judgePgbenchRun } from './pgbench-judge-run.js';
import { parsePgbenchProgress } from './parse-progress.js';
import { readTransactionLogs, type TransactionLogSummary } from './parse-transaction-log.js';
import { reportCounts, reportMetrics } from './pgbench-report-metrics.js';
import { readableScripts } from './readable-scripts.js';

export interface PgbenchDriverOptions {
  workload: PgbenchWorkload;
  /** Bin dir of the one pgbench that drives every arm. */
  clientBinDir: string;
  cpuCount: number;
  runner: ProcessRunner;
  logger: Logger;
  /** The user `runner` runs pgbench as, if not pgperf's own: it owns pgbench's temp directories. */
  clientUser?: ChildUser;
  /** Ends the version check and the script checks (DriverDeps.signal). */
  signal?: AbortSignal;
}

export function pgbenchDriver(options: PgbenchDriverOptions): Driver {
  const { workload, runner, logger, clientUser, signal: stop } = options;
  const tempDir = (prefix: string) => makeTempDir(prefix, clientUser ? { owner: clientUser } : {});
  const pgbench = path.join(options.clientBinDir, 'pgbench');
  const env = { LC_ALL: 'C', PGAPPNAME: 'pgbench' };
  let pipelineScript: Promise<string> | undefined;

  const scriptForPipeline = () => {
    if (workload.pipeline === undefined) return Promise.resolve(undefined);
    pipelineScript ??= (async () => {
      // Registered: removed when the CLI or the Action ends, however it ends.
      const { dir } = await tempDir('pgperf-scripts-');
      const file = path.join(dir, `select-only-pipeline-${workload.pipeline}.sql`);
      await writeFile(file, pipelinedSelectScript(workload.pipeline!), { mode: 0o644 });
      return file;
    })();
    return pipelineScript;
  };

  // The scripts as pgbench opens them (readable-scripts.ts): checked once, before any server starts.
  let checkedWorkload: Promise<PgbenchWorkload> | undefined;
  const runnable = () =>
    (checkedWorkload ??= readableScripts(workload, {
      runner,
      env,
      logger,
      clientUser,
      tempDir,
      signal: stop,
    }));

  return {
    async client(): Promise<ClientInfo> {
      const res = await runner.run(pgbench, ['--version'], probeOptions(stop, { env }));
      stop?.throwIfAborted();
      if (res.exitCode !== 0) {
        throw new UserError(
          `client: cannot run ${pgbench} (${describeExit(res)}); pass --client-bin DIR with a pgbench, or install Debian's postgresql package`,
        );
      }
      return { tool: 'pgbench', binDir: options.clientBinDir, version: res.stdout.trim() };
    },

    async checkFiles() {
      await runnable();
    },

    async prepare(target, signal) {
      const args = initArgs(workload, target.connection);
      const res = await runner.run(pgbench, args, { env, signal });
      if (res.exitCode !== 0) {
        throw new UserError(
          `workload ${workload.name}, arm ${target.label}: pgbench -i failed (${describeExit(res)}):\n${tail(res.stderr)}`,
        );
      }
      const done = /done in (.*?)\.?$/m.exec(res.stderr)?.[1];
      logger.info(`  ${target.label}: loaded scale ${workload.scale}${done ? `, ${done}` : ''}`);
    },

    async beforeRun(target: BenchTarget) {
      await resetBeforeRun(target, {
        truncate: writesHistory(workload) ? ['pgbench_history'] : [],
        vacuum: workload.vacuum,
        checkpoint: workload.checkpoint,
      });
    },

    async run(target: BenchTarget, spec: RunSpec): Promise<RunOutcome> {
      // Percentiles need every transaction's latency: a per-transaction log per thread, in a private
      // directory (registered: removed however pgperf ends), read into a bounded histogram and deleted.
      const logDir = needsTransactionLog(workload) ? await tempDir('pgperf-txlog-') : undefined;
      try {
        return await measure(target, spec, logDir?.dir);
      } finally {
        await logDir?.remove();
      }
    },

    async runTransactions(target, spec) {
      // pgbench -t: the same statements as the timed runs, one per round trip (without the pipeline script).
      const args = measureArgs({
        workload: await runnable(),
        connection: target.connection,
        clients: spec.clients,
        durationS: 0,
        seed: spec.seed,
        cpuCount: options.cpuCount,
        transactions: spec.transactions,
      });
      const res = await runner.run(pgbench, args, {
        env: { ...env, PGAPPNAME: spec.applicationName },
        ...(spec.signal ? { signal: spec.signal } : {}),
      });
      if (res.exitCode !== 0) {
        throw new Error(
          `arm ${target.label}: pgbench -t ${spec.transactions} failed (${describeExit(res)}): ${tail(res.stderr, 5)}`,
        );
      }
    },
  };

  async function measure(
    target: BenchTarget,
    spec: RunSpec,
    logDir: string | undefined,
  ): Promise<RunOutcome> {
    const args = measureArgs({
      workload: await runnable(),
      ...measuredRun(target, spec),
      cpuCount: options.cpuCount,
      pipelineScript: await scriptForPipeline(),
      ...(logDir ? { transactionLogPrefix: path.join(logDir, TX_LOG_PREFIX) } : {}),
    });
    const startedAt = new Date().toISOString();
    const res = await runner.run(pgbench, args, {
      env,
      signal: spec.signal,
      timeoutMs: (spec.durationS + RUN_GRACE_S) * 1000,
      onStderrLine: spec.onProgress
        ? (line) => {
            const point = parsePgbenchProgress(line)[0];
            if (point) spec.onProgress!(point);
          }
        : undefined,
    });
    const endedAt = new Date().toISOString();
    const judged = judgePgbenchRun({ ...judgeInput(res, 'pgbench'), expectedClients: spec.clients });
    const log = logDir && judged.ok ? await readTransactionLogs(logDir, TX_LOG_PREFIX) : undefined;
    return runOutcome(res, judged, {
      startedAt,
      endedAt,
      metrics: (report) => ({ ...reportMetrics(report), ...(log ? percentileMetrics(log) : {}) }),
      counts: (report) => ({
        ...reportCounts(report),
        ...(log ? { loggedTransactions: log.histogram.count } : {}),
      }),
      progress: () => parsePgbenchProgress(res.stderr),
    });
  }
}

const TX_LOG_PREFIX = 'tx';

/** p95 and p99 of the logged transactions (none when nothing was logged). */
export function percentileMetrics(log: TransactionLogSummary): RunOutcome['metrics'] {
  const p95 = log.histogram.percentileMs(0.95);
  const p99 = log.histogram.percentileMs(0.99);
  return {
    ...(p95 === undefined ? {} : { latencyP95Ms: p95 }),
    ...(p99 === undefined ? {} : { latencyP99Ms: p99 }),
  };
}
