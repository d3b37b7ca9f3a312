/** The sysbench driver: data load (prepare), per-run reset, one measured run -> sample fields, cleanup. */
import path from 'node:path';
import { findOnPath } from '../../machine/os/find-on-path.js';
import type { SysbenchWorkload } from './sysbench-workload.js';
import type { ClientInfo } from '../../core/results/result-types.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { describeExit, probeOptions, tail, type ProcessRunner } from '../../machine/os/process.js';
import {
  measuredRun,
  type BenchTarget,
  type Driver,
  type RunOutcome,
  type RunSpec,
} from '../common/driver.js';
import { RUN_GRACE_S, judgeInput, resetBeforeRun, runOutcome } from '../common/shared.js';
import { cleanupArgs, measureArgs, prepareArgs, prepareThreads } from './sysbench-command.js';
import { judgeSysbenchRun } from './sysbench-judge-run.js';
import { sysbenchFatalMessages } from './parse-output.js';
import { progressPoint, reportCounts, reportMetrics } from './sysbench-report-metrics.js';

export const SYSBENCH_MISSING = 'sysbench not found: install it with `apt-get install sysbench`';

export interface SysbenchDriverOptions {
  workload: SysbenchWorkload;
  cpuCount: number;
  runner: ProcessRunner;
  logger: Logger;
  /** Directories searched for the sysbench binary (the adapters pass $PATH); it is not in PostgreSQL's bin dir. */
  searchPath: string;
  /** Ends the version check (DriverDeps.signal). */
  signal?: AbortSignal;
}

export function sysbenchDriver(options: SysbenchDriverOptions): Driver {
  const { workload, runner, logger, signal: stop } = options;
  const env = { LC_ALL: 'C', PGAPPNAME: 'sysbench' };
  // sysbench looks for ./<script>.lua first: run it where no such file can be.
  const cwd = '/';
  let located: Promise<string> | undefined;
  const sysbench = () =>
    (located ??= findOnPath('sysbench', options.searchPath).then((bin) => {
      if (!bin) throw new UserError(`workload ${workload.name}: ${SYSBENCH_MISSING} (Debian/Ubuntu)`);
      return bin;
    }));
  const where = (target: BenchTarget) => `workload ${workload.name}, arm ${target.label}`;

  return {
    async client(): Promise<ClientInfo> {
      const bin = await sysbench();
      const res = await runner.run(bin, ['--version'], probeOptions(stop, { env, cwd }));
      stop?.throwIfAborted();
      if (res.exitCode !== 0) {
        throw new UserError(`client: cannot run ${bin} (${describeExit(res)}); ${SYSBENCH_MISSING}`);
      }
      const version = res.stdout.trim();
      if (!/^sysbench 1\.0\./.test(version)) {
        logger.warn(`${version}: pgperf parses sysbench 1.0.x output (Debian's 1.0.20); check the results`);
      }
      return { tool: 'sysbench', binDir: path.dirname(bin), version };
    },

    async prepare(target, signal) {
      const bin = await sysbench();
      const args = prepareArgs(workload, target.connection, options.cpuCount);
      const started = Date.now();
      const res = await runner.run(bin, args, { env, cwd, signal });
      signal?.throwIfAborted();
      const output = `${res.stdout}\n${res.stderr}`;
      const fatal = sysbenchFatalMessages(output);
      // A prepare failing in its worker threads prints FATAL lines and still exits 0; a partial load
      // would skew every run, so the row counts are checked too.
      let problem: string | undefined;
      if (res.exitCode !== 0 || res.spawnError) {
        problem = `${describeExit(res)}${fatal[0] === undefined ? '' : `: ${fatal[0]}`}`;
      } else if (fatal[0] !== undefined) {
        problem = `FATAL: ${fatal[0]}`;
      } else {
        problem = await checkRows(target, workload);
      }
      if (problem) {
        const log = target.logTail ? await target.logTail(15) : '';
        throw new UserError(
          `${where(target)}: sysbench ${workload.script} prepare failed (${problem}). sysbench output:\n` +
            `${tail(output.trim(), 15)}${log ? `\nServer log tail:\n${log}` : ''}`,
        );
      }
      logger.info(
        `  ${target.label}: loaded ${workload.tables} tables x ${workload.tableSize} rows ` +
          `(${prepareThreads(workload, options.cpuCount)} threads, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    },

    async beforeRun(target: BenchTarget) {
      await resetBeforeRun(target, { vacuum: workload.vacuum, checkpoint: workload.checkpoint });
    },

    async run(target: BenchTarget, spec: RunSpec): Promise<RunOutcome> {
      const bin = await sysbench();
      const args = measureArgs({ workload, ...measuredRun(target, spec) });
      const startedAt = new Date().toISOString();
      // sysbench writes its interval lines to stdout, which the runner does not stream: the progress
      // series is parsed when the run ends (spec.onProgress is not called).
      const res = await runner.run(bin, args, {
        env,
        cwd,
        signal: spec.signal,
        timeoutMs: (spec.durationS + RUN_GRACE_S) * 1000,
      });
      const endedAt = new Date().toISOString();
      const judged = judgeSysbenchRun({
        ...judgeInput(res, 'sysbench'),
        expectedThreads: spec.clients,
        maxIgnoredErrorsPct: workload.maxIgnoredErrorsPct,
      });
      return runOutcome(res, judged, {
        startedAt,
        endedAt,
        metrics: reportMetrics,
        counts: reportCounts,
        progress: (report) => (report ? report.intervals.map(progressPoint) : []),
      });
    },

    async cleanup(target, signal) {
      const res = await runner.run(await sysbench(), cleanupArgs(workload, target.connection), {
        env,
        cwd,
        signal,
      });
      const fatal = sysbenchFatalMessages(res.stdout);
      if (res.exitCode !== 0 || fatal.length > 0) {
        throw new UserError(
          `${where(target)}: sysbench ${workload.script} cleanup failed (${describeExit(res)}):\n${tail(res.stdout + res.stderr)}`,
        );
      }
    },
    // No runTransactions: pgperf runs sysbench for a time (--time), so the measurements that need counted
    // runs (instruction counts, per-statement counters) refuse sysbench workloads.
  };
}

/** Every sbtestN table holds tableSize rows after prepare; undefined when so, else what is wrong. */
async function checkRows(target: BenchTarget, w: SysbenchWorkload): Promise<string | undefined> {
  const tables = Array.from({ length: w.tables }, (_, i) => `sbtest${i + 1}`);
  const sql = `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t})`).join(" || ',' || ")}`;
  let counts: string;
  try {
    counts = (await target.psql(sql)).trim();
  } catch (e) {
    return `the tables are not there: ${errorMessage(e)}`;
  }
  const short = counts
    .split(',')
    .map((n, i) => [tables[i], Number(n)] as const)
    .filter(([, n]) => n !== w.tableSize);
  return short.length === 0
    ? undefined
    : `expected ${w.tableSize} rows per table, found ${short.map(([t, n]) => `${n} in ${t}`).join(', ')}`;
}
