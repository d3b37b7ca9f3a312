/**
 * sysbench command lines, built from a workload. Pure, so the exact options can be unit-tested: every
 * arm gets the same options, and only pgperf decides threads, duration, seeds and the data shape.
 *
 * Connection: libpq takes a host that starts with "/" as a unix-socket directory, so
 * --pgsql-host=<the cluster's socket dir> connects over the socket, where the cluster trusts its
 * superuser (initdb -A trust); no password, no TCP.
 */
import type { Connection } from '../../postgres/cluster/cluster.js';
import type { MeasuredRun } from '../common/driver.js';
import type { SysbenchWorkload } from './sysbench-workload.js';

export function connectionArgs(c: Connection): string[] {
  return [
    '--db-driver=pgsql',
    `--pgsql-host=${c.host}`,
    `--pgsql-port=${c.port}`,
    `--pgsql-user=${c.user}`,
    `--pgsql-db=${c.database}`,
  ];
}

/** Extra options that change what prepare creates (the table definitions), not only how a run runs. */
const DATA_SHAPE_OPTIONS = ['--secondary', '--create-secondary'];

function isDataShapeOption(arg: string): boolean {
  return DATA_SHAPE_OPTIONS.includes((arg.split('=', 1)[0] ?? '').replace(/_/g, '-'));
}

/**
 * What a cluster's data set looks like after prepare: workloads with the same shape (and settings) can
 * share one cluster per arm. Every OLTP script prepares the same sbtestN tables (oltp_common.lua).
 */
export function dataShape(w: SysbenchWorkload): {
  family: string;
  tables: number;
  tableSize: number;
  options: string[];
} {
  return {
    family: 'oltp',
    tables: w.tables,
    tableSize: w.tableSize,
    options: w.extraArgs.filter(isDataShapeOption).sort(),
  };
}

function dataArgs(w: SysbenchWorkload): string[] {
  return [`--tables=${w.tables}`, `--table-size=${w.tableSize}`, ...dataShape(w).options];
}

/**
 * Threads of the data load: sysbench loads tables in parallel, one table per thread at a time. Capped
 * at the largest thread count of the sweep, which max_connections is sized for.
 */
export function prepareThreads(w: SysbenchWorkload, cpuCount: number): number {
  return Math.max(1, Math.min(w.tables, cpuCount, Math.max(...w.clients)));
}

export function prepareArgs(w: SysbenchWorkload, c: Connection, cpuCount: number): string[] {
  return [
    w.script,
    ...connectionArgs(c),
    ...dataArgs(w),
    `--threads=${prepareThreads(w, cpuCount)}`,
    'prepare',
  ];
}

export function cleanupArgs(w: SysbenchWorkload, c: Connection): string[] {
  return [w.script, ...connectionArgs(c), ...dataArgs(w), 'cleanup'];
}

export interface MeasureArgsInput extends MeasuredRun {
  workload: SysbenchWorkload;
}

export function measureArgs(input: MeasureArgsInput): string[] {
  const { workload: w } = input;
  return [
    w.script,
    ...connectionArgs(input.connection),
    ...dataArgs(w),
    `--threads=${input.clients}`,
    `--time=${input.durationS}`,
    '--report-interval=1',
    // Pinned: the default is "special" in 1.0.x and "uniform" in later sysbench.
    `--rand-type=${w.randType}`,
    // 0 would make sysbench seed from the clock; every other value is reproducible.
    `--rand-seed=${input.seed === 0 ? 1 : input.seed}`,
    `--db-ps-mode=${w.psMode}`,
    `--percentile=${w.percentile}`,
    // p95/p99 gates read both percentiles off the histogram (--percentile gives only one).
    ...(w.metrics.includes('p95') || w.metrics.includes('p99') ? ['--histogram=on'] : []),
    ...w.extraArgs.filter((a) => !isDataShapeOption(a)),
    'run',
  ];
}
