/**
 * The series model of nightly tracking: from stored runs (RunResult documents), one series per
 * fingerprint × workload × clients × metric, one point per run: the run's commit, its date and the median
 * of the measured arm's runs with a distribution-free 95% CI. Change points are found on ln(median), so a
 * step reads as a relative change whatever the level.
 *
 * Which arm a run contributes: the one labelled "head", else the last arm (a nightly run has a single
 * arm; an A/B run's later arm is the change under test). Failed runs and unusable values (non-finite or
 * ≤ 0) are left out of the median; a run without a usable value adds no point.
 *
 * Each point carries the id of the workload definition it measured (core/results/workload-definition.ts):
 * a series keeps its name when its workload file is edited, but what it measures changes there, so the
 * analysis splits it into segments of one definition (definition-segments.ts) and never compares across.
 */
import { stableHash } from '../util/stable-hash.js';
import { collectCellRuns, documentCells, runValues } from '../compare/cell-runs.js';
import { METRICS, type MetricName } from '../results/metrics.js';
import type { RunResult } from '../results/result-types.js';
import { medianCi } from '../stats/median-ci.js';
import { definitionHash, definitionId } from '../results/workload-definition.js';

/**
 * A run of the history: a results document with the store's fields (src/core/results/result-types.ts gains them with the
 * results store; declared here too so this module does not depend on that change).
 */
export type HistoryRun = RunResult & {
  runId?: string;
  fingerprint?: { id: string; facts: Record<string, string> };
};

/**
 * The metrics a series is built for: throughput, the latency percentile where a driver records it, and the
 * backends' memory peak and temp bytes per transaction (src/core/results/memory.ts) where runs recorded them.
 */
export const SERIES_METRICS: readonly MetricName[] = [
  'tps',
  'latencyPctMs',
  'backendMemoryPeakBytes',
  'tempBytesPerTx',
];

export interface SeriesKey {
  fingerprint: string;
  workload: string;
  clients: number;
  metric: MetricName;
}

export interface SeriesPoint {
  /** The store's run id, else the run's start time (unique enough to name a run in a page). */
  runId: string;
  /** The measured commit; null when the run recorded none. */
  sha: string | null;
  ref: string | null;
  /** When the run started (ISO 8601); points are ordered by it. */
  date: string;
  /** Usable runs behind the median. */
  n: number;
  median: number;
  /** Order-statistic CI of the median, at `ciLevel` (the level it achieves; below 95% with n < 6). */
  ciLower: number;
  ciUpper: number;
  ciLevel: number;
  /**
   * The id of the workload definition the run measured (definitionId). A run that recorded no definition
   * (or no script texts) takes its neighbour's: what cannot be told apart is not called a change.
   */
  definition: string;
}

export interface Series {
  /** Stable id: fingerprint/workload@clients/metric. */
  id: string;
  key: SeriesKey;
  /** The fingerprint's facts, for pages that say what machine a series is from. */
  facts: Record<string, string>;
  /** Which direction of the metric is better (METRICS). */
  better: 'higher' | 'lower';
  /** Oldest first. */
  points: SeriesPoint[];
}

export function seriesId(key: SeriesKey): string {
  return `${key.fingerprint}/${key.workload}@${key.clients}/${key.metric}`;
}

/**
 * Every series in a set of stored runs, ordered by fingerprint, workload, metric and client count; each
 * series' points ordered by run date (then run id). Runs still running are skipped.
 */
export function buildSeries(
  runs: readonly HistoryRun[],
  metrics: readonly MetricName[] = SERIES_METRICS,
): Series[] {
  const byId = new Map<string, Series>();
  const recorded = new Map<SeriesPoint, RecordedDefinition>();
  const machineOf = seriesMachines(runs);
  for (const run of runs) {
    if (run.status === 'running') continue;
    const arm = measuredArm(run);
    if (arm === undefined) continue;
    const fingerprint = machineOf.get(run)!;
    for (const metric of metrics) {
      const cells = collectCellRuns(run.samples, metric);
      for (const cell of documentCells(run)) {
        const values = runValues(cells.get(`${cell.workload}@${cell.clients}`)?.get(arm)).filter(
          (v) => Number.isFinite(v) && v > 0,
        );
        if (values.length === 0) continue;
        // A runner canary's cells are series of their own, never mixed with the project's.
        const workload = run.source?.canary ? canaryWorkload(cell.workload) : cell.workload;
        const key: SeriesKey = { fingerprint: fingerprint.id, workload, clients: cell.clients, metric };
        const id = seriesId(key);
        let series = byId.get(id);
        if (!series) {
          series = { id, key, facts: fingerprint.facts, better: METRICS[metric].better, points: [] };
          byId.set(id, series);
        }
        const ci = medianCi(values);
        const point: SeriesPoint = {
          runId: run.runId ?? run.startedAt,
          sha: run.source?.head?.sha ?? null,
          ref: run.source?.head?.ref ?? null,
          date: run.startedAt,
          n: values.length,
          median: ci.median,
          ciLower: ci.lower,
          ciUpper: ci.upper,
          ciLevel: ci.achievedLevel,
          definition: '',
        };
        series.points.push(point);
        recorded.set(point, recordedDefinition(run, cell.workload, arm));
      }
    }
  }
  const all = [...byId.values()];
  for (const s of all) {
    s.points.sort((a, b) => a.date.localeCompare(b.date) || a.runId.localeCompare(b.runId));
    assignDefinitions(s.points, recorded);
  }
  return all.sort(
    (a, b) =>
      a.key.fingerprint.localeCompare(b.key.fingerprint) ||
      a.key.workload.localeCompare(b.key.workload) ||
      metrics.indexOf(a.key.metric) - metrics.indexOf(b.key.metric) ||
      a.key.clients - b.key.clients,
  );
}

/** What a run recorded of a workload's definition: undefined parts were not recorded. */
interface RecordedDefinition {
  spec: string | undefined;
  scripts: string | undefined;
}

function recordedDefinition(run: RunResult, workload: string, arm: string): RecordedDefinition {
  const spec = run.workloads?.[workload];
  const settings = run.arms.find((a) => a.label === arm)?.settingOverrides ?? {};
  return {
    spec: spec === undefined ? undefined : definitionHash(spec, settings),
    scripts: run.workloadScripts?.[workload],
  };
}

/**
 * Each point's definition id, oldest first. A part a run did not record (documents before it was, or a
 * workload without script files) is its nearest earlier point's, else its nearest later one's, with the same
 * definition otherwise: a run that cannot be told apart from its neighbours does not start a segment.
 */
function assignDefinitions(
  points: SeriesPoint[],
  recorded: ReadonlyMap<SeriesPoint, RecordedDefinition>,
): void {
  const parts = points.map((p) => ({ ...recorded.get(p)! }));
  const fill = (key: 'spec' | 'scripts', order: number[]) => {
    const last = new Map<string | undefined, string>();
    for (const i of order) {
      const part = parts[i]!;
      const group = key === 'spec' ? '' : part.spec;
      if (part[key] !== undefined) last.set(group, part[key]);
      else if (last.has(group)) part[key] = last.get(group);
    }
  };
  const forward = points.map((_, i) => i);
  const backward = [...forward].reverse();
  fill('spec', forward);
  fill('spec', backward);
  fill('scripts', forward);
  fill('scripts', backward);
  for (const [i, p] of points.entries()) {
    const part = parts[i]!;
    p.definition = definitionId(part.spec ?? '', part.scripts);
  }
}

/** The series name of a workload measured as the runner canary: "canary:select-only". */
export function canaryWorkload(workload: string): string {
  return `${CANARY_PREFIX}${workload}`;
}

/** Whether a series' workload is a runner canary's (canaryWorkload). */
export function isCanaryWorkload(workload: string): boolean {
  return workload.startsWith(CANARY_PREFIX);
}

const CANARY_PREFIX = 'canary:';

/** The arm whose samples form the run's point: "head" if there is one, else the last arm. */
export function measuredArm(run: RunResult): string | undefined {
  return run.arms.find((a) => a.label === 'head')?.label ?? run.arms[run.arms.length - 1]?.label;
}

/**
 * The fingerprint each run's series are filed under. Runs whose fingerprints differ only in the settings
 * hash share their series: the settings a run wrote are its workload's (and arm's), which the workload
 * definition already records (a settings edit starts a new segment of the same chart, never a second
 * chart), plus max_connections, which follows the client list (adding a client level must not move every
 * series). The group takes the newest timed run's fingerprint, so a history with one fingerprint keeps its ids.
 */
function seriesMachines(
  runs: readonly HistoryRun[],
): Map<HistoryRun, { id: string; facts: Record<string, string> }> {
  const groups = new Map<string, HistoryRun[]>();
  for (const run of runs) {
    const { settingsHash: _settings, ...machine } = (run.fingerprint ?? fallbackFingerprint(run)).facts;
    const key = stableHash(JSON.stringify(Object.entries(machine).sort(([a], [b]) => a.localeCompare(b))));
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const out = new Map<HistoryRun, { id: string; facts: Record<string, string> }>();
  for (const group of groups.values()) {
    // A run decided without timed rounds (no sample, no settings hash) plots nothing: never its name-giver.
    const timed = group.filter((r) => r.samples.length > 0);
    const newest = (timed.length > 0 ? timed : group).reduce((a, b) => (b.startedAt > a.startedAt ? b : a));
    const fingerprint = newest.fingerprint ?? fallbackFingerprint(newest);
    for (const run of group) out.set(run, fingerprint);
  }
  return out;
}

/**
 * Runs saved before fingerprints existed: a stand-in from the machine facts the document carries, marked
 * "env-" so it is never mistaken for the store's fingerprint of the same machine.
 */
function fallbackFingerprint(run: RunResult): { id: string; facts: Record<string, string> } {
  const env = run.environment;
  const facts: Record<string, string> = {
    cpuModel: env.cpuModel,
    cpuCount: String(env.cpuCount),
    kernel: env.kernel,
    os: env.os,
    settingsHash: env.settingsHash,
  };
  const hash = stableHash(JSON.stringify(facts)).slice(0, 12);
  return { id: `env-${hash}`, facts };
}
