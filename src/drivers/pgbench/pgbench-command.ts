/**
 * pgbench command lines, built from a workload. Pure, so the exact flags can be unit-tested:
 * every arm gets the same flags, and only pgperf decides clients, threads, duration and seeds.
 */
import type { PgbenchWorkload } from './pgbench-workload.js';
import type { Connection } from '../../postgres/cluster/cluster.js';
import type { MeasuredRun } from '../common/driver.js';

export function connectionArgs(c: Connection): string[] {
  return ['-h', c.host, '-p', String(c.port), '-U', c.user];
}

export function initArgs(w: PgbenchWorkload, c: Connection): string[] {
  const args = ['-i', '-I', w.init.steps, '-s', String(w.scale), '-q'];
  if (w.init.partitions > 0) args.push(`--partitions=${w.init.partitions}`);
  if (w.init.fillfactor !== 100) args.push('-F', String(w.init.fillfactor));
  if (w.init.unloggedTables) args.push('--unlogged-tables');
  return [...args, ...connectionArgs(c), c.database];
}

/**
 * pgbench -j for a cell: the workload's rule, capped at the client count as pgbench itself does. When
 * the client is pinned, `auto` follows the client CPUs instead of the machine's.
 */
export function threadsFor(
  w: PgbenchWorkload,
  clients: number,
  cpuCount: number,
  clientCpus?: number,
): number {
  if (w.threads === 'clients') return clients;
  if (w.threads === 'auto') return Math.max(1, Math.min(clients, clientCpus ?? cpuCount));
  return Math.min(w.threads, clients);
}

export interface MeasureArgsInput extends MeasuredRun {
  workload: PgbenchWorkload;
  cpuCount: number;
  /** CPUs the client is pinned to (src/machine/pinning.ts CpuPlan.client.length), if pinned. */
  clientCpus?: number;
  /** Path of the generated pipeline script, when the workload pipelines select-only. */
  pipelineScript?: string;
  /** Write the per-transaction log (--log) with this path prefix, for latency percentiles. */
  transactionLogPrefix?: string;
  /** Run this many transactions per client (-t) instead of durationS seconds, without progress lines. */
  transactions?: number;
}

export function measureArgs(input: MeasureArgsInput): string[] {
  const { workload: w, clients } = input;
  const args = [
    '-n', // pgperf vacuums and checkpoints itself, the same way for every arm
    '-M',
    w.queryMode,
    '-c',
    String(clients),
    '-j',
    String(threadsFor(w, clients, input.cpuCount, input.clientCpus)),
    ...(input.transactions !== undefined
      ? ['-t', String(input.transactions)]
      : ['-T', String(input.durationS), '-P', '1']),
    `--random-seed=${input.seed}`,
  ];
  if (input.pipelineScript) {
    args.push('-f', input.pipelineScript, '-s', String(w.scale));
  } else if (w.builtin) {
    args.push('-b', w.builtin);
  } else {
    // Custom scripts see :scale = 1 unless it is given; builtins read it from the tables.
    for (const s of w.scripts ?? []) args.push('-f', `${s.file}@${s.weight}`);
    args.push('-s', String(w.scale));
  }
  if (input.transactionLogPrefix) args.push('--log', `--log-prefix=${input.transactionLogPrefix}`);
  args.push(...w.extraArgs);
  return [...args, ...connectionArgs(input.connection), input.connection.database];
}

/**
 * The builtin select-only transaction as a pipeline of `depth` lookups with independent keys:
 * one round trip per pipeline instead of per query (the cure for idle-core effects on many-core
 * machines). TPS then counts pipelines.
 */
export function pipelinedSelectScript(depth: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= depth; i++) lines.push(`\\set aid${i} random(1, 100000 * :scale)`);
  lines.push('\\startpipeline');
  for (let i = 1; i <= depth; i++) lines.push(`SELECT abalance FROM pgbench_accounts WHERE aid = :aid${i};`);
  lines.push('\\endpipeline');
  return `${lines.join('\n')}\n`;
}

/** Builtins that write pgbench_history; pgbench itself truncates it before a run unless -n. */
export function writesHistory(w: PgbenchWorkload): boolean {
  return w.builtin === 'tpcb-like' || w.builtin === 'simple-update';
}

/** Whether the workload gates on a latency percentile, which only the per-transaction log gives. */
export function needsTransactionLog(w: PgbenchWorkload): boolean {
  return w.metrics.includes('p95') || w.metrics.includes('p99');
}
