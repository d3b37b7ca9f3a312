/**
 * postgresql.conf for benchmark clusters: a documented baseline for CPU-bound, reproducible runs
 * (synthesised from Vondra's, PGPerfFarm's and Callaghan's configurations), then the workload's overrides,
 * then per-arm overrides (normally none: every arm gets the same file). Values that only make sense on
 * big runners (shared_buffers = 16GB, huge_pages = on) are scaled to what a CI machine has; workloads
 * raise them.
 */
import { createHash } from 'node:crypto';
import { SETTING_NAME, settingProblem } from '../../core/results/settings.js';
import { UserError } from '../../core/util/errors.js';

/** Connections pgperf itself may hold (psql for VACUUM/CHECKPOINT, monitoring) plus slack. */
export const PGPERF_CONNECTIONS = 5;
/** PostgreSQL's default superuser_reserved_connections. */
export const SUPERUSER_RESERVED = 3;

export const BASELINE_SETTINGS: Readonly<Record<string, string>> = {
  // Memory: enough for the shipped workloads' data sets; raise per workload for bigger scales.
  shared_buffers: '1GB',
  // 'try' because CI machines rarely reserve huge pages; 'on' would refuse to start there.
  huge_pages: 'try',
  // Keep checkpoints out of short runs; pgperf checkpoints explicitly before each measured run.
  max_wal_size: '8GB',
  min_wal_size: '1GB',
  checkpoint_timeout: '30min',
  checkpoint_completion_target: '0.9',
  // Durable defaults, stated so a results file shows them; workloads may relax them and say so.
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  autovacuum: 'on',
  // Plan-shape and JIT noise are not what a patch benchmark measures.
  max_parallel_workers_per_gather: '0',
  jit: 'off',
  log_checkpoints: 'on',
  lc_messages: "'C'",
};

export interface ConfInput {
  port: number;
  socketDir: string;
  /** The largest client count any workload on this cluster uses. */
  maxClients: number;
  /** Workload settings, applied identically to every arm. */
  workloadSettings: Record<string, string | number | boolean>;
  /** Settings for this arm only (an experiment, like the demo's synchronous_commit off). */
  armSettings?: Record<string, string>;
}

/**
 * Settings in the order they are written (later wins). The workload's and the arm's are checked once
 * more here, whatever their source (workload file, --set, a stored run's arm): a refused setting
 * (src/core/results/settings.ts) is never written.
 */
export function clusterSettings(input: ConfInput): Record<string, string> {
  refuseSettings('the workload', input.workloadSettings);
  refuseSettings('the arm', input.armSettings ?? {});
  const settings: Record<string, string> = {
    ...BASELINE_SETTINGS,
    max_connections: String(Math.max(20, input.maxClients + SUPERUSER_RESERVED + PGPERF_CONNECTIONS)),
  };
  for (const [k, v] of Object.entries(input.workloadSettings)) settings[k] = String(v);
  for (const [k, v] of Object.entries(input.armSettings ?? {})) settings[k] = v;
  // Connection settings last: pgperf owns them (the schema refuses them in workloads).
  settings.listen_addresses = "''";
  settings.port = String(input.port);
  settings.unix_socket_directories = quote(input.socketDir);
  return settings;
}

function refuseSettings(owner: string, settings: Record<string, string | number | boolean>): void {
  for (const [name, value] of Object.entries(settings)) {
    const problem = settingProblem(name, String(value));
    if (problem) throw new UserError(`a setting of ${owner}: ${problem}`);
  }
}

export function renderConf(settings: Record<string, string>): string {
  const lines = ['# Written by pgperf; included at the end of postgresql.conf.'];
  for (const [k, v] of Object.entries(settings)) {
    // Validated where settings enter (workload files, --set); a line break here would add a setting.
    if (!SETTING_NAME.test(k) || /[\n\r\0]/.test(v)) {
      throw new Error(`refusing to write setting ${JSON.stringify(k)} = ${JSON.stringify(v)}`);
    }
    lines.push(`${k} = ${formatValue(v)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Hash of the settings that define an experiment (connection settings excluded: port and socket
 * differ per run without changing what is measured).
 */
export function settingsHash(settings: Record<string, string>): string {
  const relevant = Object.entries(settings)
    .filter(([k]) => !['port', 'unix_socket_directories'].includes(k))
    .sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify(relevant)).digest('hex').slice(0, 16);
}

/** Leaves numbers, on/off and already-quoted values alone; quotes the rest. */
function formatValue(v: string): string {
  if (/^'(?:[^'\\]|''|\\.)*'$/.test(v) || /^-?\d+(\.\d+)?$/.test(v) || /^(on|off|true|false)$/i.test(v))
    return v;
  return quote(v);
}

function quote(v: string): string {
  return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
