/**
 * The results store: every run pgperf measures, kept so that later runs can be compared with it
 * (stored baselines), plotted (trends) and listed. One interface, two backends: a directory of JSON
 * files (dir-store.ts, the embedded default) and PostgreSQL (pg-store.ts, shared by a fleet of runners).
 * This module holds the interface and what both backends share: run ids, the summary a listing shows,
 * and the meaning of a filter.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, environmentFingerprint } from '../machine/fingerprint.js';
import { RESULTS_SCHEMA_VERSION, type RunResult } from '../core/results/result-types.js';
import { UserError } from '../core/util/errors.js';
import { validateResults } from './read-results.js';

/** What a listing shows of one stored run, without loading its samples. */
export interface StoredRun {
  id: string;
  /** When the store last saved the run (ISO). */
  savedAt: string;
  startedAt: string;
  status: RunResult['status'];
  /** Fingerprint id (16 hex characters). */
  fingerprint: string;
  repository?: string;
  /** One entry per arm, in arm order: the commit it was built from, when known. */
  commits: Array<{ arm: string; ref?: string; sha?: string }>;
  workloads: string[];
  cells: number;
  /** Samples in the document (ok and failed). */
  samples: number;
}

export interface RunFilter {
  /** A sha prefix (4+ hex characters) or a ref name, matched against every arm (or only `arm`). */
  commit?: string;
  /** Only runs with this arm label (with `commit`: the commit must be this arm's). */
  arm?: string;
  /** Only runs that measured this workload. */
  workload?: string;
  /** Fingerprint id prefix. */
  fingerprint?: string;
  /** Runs started at or after this ISO date or time. */
  since?: string;
  /** Runs started at or before this ISO time; a date alone means the whole of that day (UTC). */
  until?: string;
  /** At most this many runs (the newest). */
  limit?: number;
}

export interface ResultStore {
  /** Human description with credentials masked, for logs. */
  readonly description: string;
  /**
   * Saves (inserts or replaces) a run. The stored copy gets `runId` (see runIdOf) and `fingerprint`
   * (computed when absent); the given object is not changed. Saving the same run again (a run in
   * progress saved after every sample, or a results file imported twice) replaces the entry.
   */
  save(result: RunResult): Promise<StoredRun>;
  /** The stored document; a UserError naming the id when unknown. */
  load(id: string): Promise<RunResult>;
  /** Stored runs matching the filter, newest (by startedAt) first. */
  list(filter?: RunFilter): Promise<StoredRun[]>;
  close(): Promise<void>;
}

/** Run ids are file names in the directory store: letters, digits, ".", "_", "-". */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The run's id: `result.runId` when set, else derived from the document so that saving the same run
 * twice gives the same id: `<startedAt, compact>-<8 hex of sha256(startedAt, hostname, seed)>`,
 * e.g. "20261123T132302Z-9c0f3a1b". Sorting ids sorts runs by start time (to the second).
 */
export function runIdOf(result: RunResult): string {
  if (result.runId !== undefined) {
    if (typeof result.runId !== 'string' || !RUN_ID.test(result.runId)) {
      throw new UserError(
        `runId ${JSON.stringify(result.runId)} is not a valid run id; expected letters, digits, ".", "_" and "-" (at most 128)`,
      );
    }
    return result.runId;
  }
  const started = new Date(result.startedAt);
  if (Number.isNaN(started.getTime())) {
    throw new UserError(`startedAt ${JSON.stringify(result.startedAt)} is not an ISO date-time`);
  }
  const compact = started
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const identity = canonicalJson({
    startedAt: result.startedAt,
    hostname: result.environment?.hostname,
    seed: result.plan?.seed,
  });
  return `${compact}-${createHash('sha256').update(identity).digest('hex').slice(0, 8)}`;
}

/** Checks a run id given by a user (`store show ID`) before it becomes part of a path or query. */
export function checkRunId(id: string): string {
  if (!RUN_ID.test(id)) {
    throw new UserError(
      `run id '${id}' is not valid; expected an id as printed by "pgperf store list" (letters, digits, ".", "_", "-")`,
    );
  }
  return id;
}

/**
 * The document as stored: with its run id and fingerprint. Refuses documents this pgperf cannot read
 * back (another schema version) or would refuse to read (validateResults: its shape and consistency),
 * naming `where` (a file, "run ID"); what it warns about goes to `warn`.
 */
export function documentToStore(
  result: RunResult,
  where: string,
  warn?: (message: string) => void,
): RunResult {
  checkSchemaVersion(result.schemaVersion, where);
  validateResults(result, where, warn ? { warn } : {});
  const runId = runIdOf(result);
  return { ...result, runId, fingerprint: result.fingerprint ?? environmentFingerprint(result) };
}

/** A clear refusal of documents written by a newer (or an unknown older) pgperf. */
export function checkSchemaVersion(version: unknown, where: string): void {
  if (version === RESULTS_SCHEMA_VERSION) return;
  if (typeof version === 'number' && version > RESULTS_SCHEMA_VERSION) {
    throw new UserError(
      `${where}: schemaVersion ${version} is newer than this pgperf reads (${RESULTS_SCHEMA_VERSION}); upgrade pgperf to read it`,
    );
  }
  throw new UserError(
    `${where}: schemaVersion is ${JSON.stringify(version)}; this pgperf reads schemaVersion ${RESULTS_SCHEMA_VERSION}`,
  );
}

/** The listing entry of a stored document (which has its runId and fingerprint). */
export function summarize(doc: RunResult, savedAt: string): StoredRun {
  const commits = doc.arms.map((arm) => {
    const build: { ref?: unknown; sha?: unknown } = arm.build ?? {};
    const source =
      arm.label === 'base' ? doc.source?.base : arm.label === 'head' ? doc.source?.head : undefined;
    const ref = typeof build.ref === 'string' ? build.ref : source?.ref;
    const sha = typeof build.sha === 'string' ? build.sha : source?.sha;
    return { arm: arm.label, ...(ref !== undefined ? { ref } : {}), ...(sha !== undefined ? { sha } : {}) };
  });
  const workloads = [...new Set(doc.plan.cells.map((c) => c.workload))];
  return {
    id: doc.runId!,
    savedAt,
    startedAt: doc.startedAt,
    status: doc.status,
    fingerprint: doc.fingerprint!.id,
    ...(doc.source?.repository !== undefined ? { repository: doc.source.repository } : {}),
    commits,
    workloads,
    cells: doc.plan.cells.length,
    samples: doc.samples.length,
  };
}

/** A filter checked and normalised once: dates as instants, prefixes lower-cased. */
export interface ResolvedFilter {
  commit?: string;
  arm?: string;
  workload?: string;
  fingerprint?: string;
  /** Inclusive lower bound (ms since the epoch). */
  sinceMs?: number;
  /** Exclusive upper bound (ms since the epoch). */
  untilMs?: number;
  limit?: number;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 3600 * 1000;

/** Checks a filter; bad values are UserErrors naming the filter field (the CLI flag of the same name). */
export function resolveFilter(filter: RunFilter = {}): ResolvedFilter {
  const out: ResolvedFilter = {};
  const text = (name: keyof RunFilter, v: string | undefined): string | undefined => {
    if (v === undefined) return undefined;
    if (v.trim() === '') throw new UserError(`--${name} must not be empty`);
    return v.trim();
  };
  out.commit = text('commit', filter.commit);
  out.arm = text('arm', filter.arm);
  out.workload = text('workload', filter.workload);
  const fp = text('fingerprint', filter.fingerprint);
  if (fp !== undefined) {
    if (!/^[0-9a-f]{1,16}$/i.test(fp)) {
      throw new UserError(`--fingerprint must be a fingerprint id or its prefix (hex), got '${fp}'`);
    }
    out.fingerprint = fp.toLowerCase();
  }
  if (filter.since !== undefined) out.sinceMs = parseDate('since', filter.since);
  if (filter.until !== undefined) {
    const t = parseDate('until', filter.until);
    out.untilMs = DATE_ONLY.test(filter.until.trim()) ? t + DAY_MS : t + 1;
  }
  if (filter.limit !== undefined) {
    if (!Number.isSafeInteger(filter.limit) || filter.limit <= 0) {
      throw new UserError(`--limit must be a positive integer, got '${filter.limit}'`);
    }
    out.limit = filter.limit;
  }
  for (const k of Object.keys(out) as Array<keyof ResolvedFilter>) if (out[k] === undefined) delete out[k];
  return out;
}

function parseDate(name: string, value: string): number {
  const v = value.trim();
  const t = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)
    ? Date.parse(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v)
    : NaN;
  if (Number.isNaN(t)) {
    throw new UserError(
      `--${name} must be an ISO date or date-time such as 2026-11-23 or 2026-11-23T14:00:00Z, got '${value}'`,
    );
  }
  return t;
}

/** Whether a stored run passes a resolved filter (limit aside). */
export function matchesFilter(run: StoredRun, f: ResolvedFilter): boolean {
  if (f.fingerprint !== undefined && !run.fingerprint.startsWith(f.fingerprint)) return false;
  if (f.workload !== undefined && !run.workloads.includes(f.workload)) return false;
  const started = Date.parse(run.startedAt);
  if (f.sinceMs !== undefined && !(started >= f.sinceMs)) return false;
  if (f.untilMs !== undefined && !(started < f.untilMs)) return false;
  const arms = f.arm === undefined ? run.commits : run.commits.filter((c) => c.arm === f.arm);
  if (f.arm !== undefined && arms.length === 0) return false;
  if (f.commit !== undefined && !arms.some((c) => commitMatches(c, f.commit!))) return false;
  return true;
}

/** A commit matches a ref by name, or a sha by prefix (case-insensitive hex). */
export function commitMatches(c: { ref?: string; sha?: string }, wanted: string): boolean {
  if (c.ref === wanted) return true;
  return (
    /^[0-9a-f]+$/i.test(wanted) && c.sha !== undefined && c.sha.toLowerCase().startsWith(wanted.toLowerCase())
  );
}

/** Newest first by start time, then by id, so the order is total and the same in every backend. */
export function newestFirst(a: StoredRun, b: StoredRun): number {
  const d = Date.parse(b.startedAt) - Date.parse(a.startedAt);
  return d !== 0 ? d : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
