/**
 * The history site as data: per workload, one chart per fingerprint × metric with one line per client
 * count over the runs (by date), each point's commit, median and CI, the change points to mark and the
 * time range the chart opens on; per series, for the index, its latest value, its trend and a
 * sparkline; and once for the site, what each answer cost over time. Computed from a HistoryAnalysis;
 * renderHistorySite turns it into HTML.
 */
import { METRICS, type MetricName } from '../../results/metrics.js';
import { safeUrl } from '../markdown-escape.js';
import type { HistoryAnalysis, SeriesChangePoint } from '../../history/history-analysis.js';
import { sparkline, type Sparkline } from './sparkline.js';
import { timeAxisData, timeRange, type TimeAxisData } from './time-axis.js';
import { seriesTrend, type SeriesTrend } from '../../history/trend.js';
import type { AnswerCosts } from '../../history/answer-costs.js';
import { costText, type AnswerCost } from '../../results/answer-cost.js';

export interface HistorySiteData {
  title: string;
  /** Commit links are `${repoUrl}/commit/${sha}`; null: commits are shown without links (also when the
   * given URL is not an http(s) URL). */
  repoUrl: string | null;
  runs: number;
  options: HistoryAnalysis['options'];
  /** How many machine fingerprints the workloads' series come from (the index names them when > 1). */
  fingerprints: number;
  /** How every chart labels its time axis (time-axis.ts). */
  timeAxis: TimeAxisData;
  workloads: WorkloadPageData[];
  /** What each answer cost, for the index's chart. */
  cost: CostChartData;
}

/**
 * The index's chart of what each answer cost: one point per run that recorded its cost, with a line for
 * the wall time and one per stage (the stages do not add up to it: the checks before measuring, the
 * compiled-code comparison and the analysis are in the wall time only).
 */
export interface CostChartData {
  /** DOM id. */
  id: string;
  /** Oldest first; `t` in seconds since the epoch; `text` the run's cost as every surface says it. */
  runs: Array<{ t: number; runId: string; sha: string | null; date: string; text: string }>;
  /** The time range the chart opens on (timeRange of the runs); null without runs. */
  xRange: [number, number] | null;
  /** The unit of the lines' values: minutes once the dearest answer took COST_MINUTES_FROM_S or more. */
  unit: 's' | 'min';
  /** Wall time first, then build, counted runs and timed rounds; values aligned with `runs`, in `unit`. */
  lines: Array<{ stage: 'wall' | 'build' | 'counted' | 'timed'; label: string; values: number[] }>;
  /** Runs left out: no cost recorded, a runner canary's run, a start date that does not parse. */
  withoutCost: number;
  canaries: number;
  undated: number;
}

/** The dearest answer from which the cost chart counts minutes rather than seconds. */
export const COST_MINUTES_FROM_S = 600;

export interface WorkloadPageData {
  workload: string;
  /** File name of the workload's page in the site. */
  file: string;
  charts: ChartData[];
  /** One per line of the charts, in chart order: what the index shows of each series. */
  series: SeriesSummary[];
}

export interface SeriesSummary {
  /** DOM id of the chart that draws the series on the workload page. */
  chart: string;
  fingerprint: string;
  metric: MetricName;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  clients: number;
  /** "1 client", "4 clients". */
  clientsLabel: string;
  trend: SeriesTrend;
  sparkline: Sparkline;
}

export interface ChartData {
  /** DOM id. */
  id: string;
  fingerprint: string;
  facts: Record<string, string>;
  metric: MetricName;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  /** One entry per run that measured any line of the chart, oldest first; `t` in seconds since the epoch. */
  runs: Array<{ t: number; runId: string; sha: string | null; date: string }>;
  /** The time range the chart opens on (seconds, timeRange of the runs); null when no run date parses. */
  xRange: [number, number] | null;
  lines: LineData[];
  /**
   * Where the workload's definition changed (a new segment of its series starts: definition-segments.ts),
   * marked "workload changed": `run` indexes `runs`; `from` and `to` are the definition ids.
   */
  definitionChanges: Array<{ run: number; date: string; from: string; to: string }>;
}

export interface LineData {
  clients: number;
  label: string;
  /** Aligned with `runs`; null where the run did not measure this client count. */
  median: Array<number | null>;
  lower: Array<number | null>;
  upper: Array<number | null>;
  n: Array<number | null>;
  /** 'too-few-points' when the series is shorter than the detector needs (`needed` runs). */
  status: 'analysed' | 'too-few-points';
  needed: number;
  /** Each with the chart run of its first changed point; a drift also with the run where it ended (a span). */
  changePoints: Array<SeriesChangePoint & { run: number; endRun?: number }>;
}

export interface SiteOptions {
  title?: string;
  repoUrl?: string;
  /** Only these workloads (all when absent); unknown names are the caller's to reject (workloadNames). */
  workloads?: readonly string[];
}

/** Every workload name in the analysis, sorted. */
export function workloadNames(analysis: HistoryAnalysis): string[] {
  return [...new Set(analysis.series.map((s) => s.series.key.workload))].sort();
}

export function historySiteData(analysis: HistoryAnalysis, options: SiteOptions = {}): HistorySiteData {
  const names = workloadNames(analysis).filter((w) => !options.workloads || options.workloads.includes(w));
  const files = new Set<string>();
  const workloads = names.map((workload) => {
    const file = uniqueFile(`workload-${slug(workload)}.html`, files);
    const groups = new Map<string, HistoryAnalysis['series']>();
    for (const s of analysis.series) {
      if (s.series.key.workload !== workload) continue;
      const key = `${s.series.key.fingerprint}/${s.series.key.metric}`;
      groups.set(key, [...(groups.get(key) ?? []), s]);
    }
    const charts = [...groups.values()].map((group, i) => chartData(group, `chart-${i + 1}`));
    const series = [...groups.values()].flatMap((group, i) =>
      [...group]
        .sort((a, b) => a.series.key.clients - b.series.key.clients)
        .map((s) => seriesSummary(s, `chart-${i + 1}`)),
    );
    return { workload, file, charts, series };
  });
  const fingerprints = new Set(workloads.flatMap((w) => w.charts.map((c) => c.fingerprint)));
  return {
    title: options.title ?? 'pgperf history',
    repoUrl: options.repoUrl ? safeUrl(options.repoUrl.replace(/\/+$/, '')) : null,
    runs: analysis.runs,
    options: analysis.options,
    fingerprints: fingerprints.size,
    timeAxis: timeAxisData(),
    workloads,
    cost: costChartData(analysis.costs),
  };
}

/** The cost chart's data from the runs' recorded costs (answer-costs.ts). */
export function costChartData(costs: AnswerCosts): CostChartData {
  const dated = costs.points
    .map((p) => ({ ...p, t: Date.parse(p.date) / 1000 }))
    .filter((p) => Number.isFinite(p.t))
    .sort((a, b) => a.t - b.t || a.runId.localeCompare(b.runId));
  const unit = Math.max(0, ...dated.map((p) => p.cost.wallS)) >= COST_MINUTES_FROM_S ? 'min' : 's';
  const scale = unit === 'min' ? 60 : 1;
  const line = (
    stage: CostChartData['lines'][number]['stage'],
    label: string,
    of: (c: AnswerCost) => number,
  ) => ({
    stage,
    label,
    values: dated.map((p) => Math.round((of(p.cost) / scale) * 100) / 100),
  });
  return {
    id: 'cost-chart',
    runs: dated.map((p) => ({ t: p.t, runId: p.runId, sha: p.sha, date: p.date, text: costText(p.cost) })),
    xRange: timeRange(dated.map((p) => p.t)),
    unit,
    lines: [
      line('wall', 'answer (wall time)', (c) => c.wallS),
      line('build', 'build', (c) => c.buildS),
      line('counted', 'counted runs', (c) => c.countedS),
      line('timed', 'timed rounds', (c) => c.timedS),
    ],
    withoutCost: costs.withoutCost,
    canaries: costs.canaries,
    undated: costs.points.length - dated.length,
  };
}

function seriesSummary(s: HistoryAnalysis['series'][number], chart: string): SeriesSummary {
  const { key, points } = s.series;
  const info = METRICS[key.metric];
  const trend = seriesTrend(s);
  const change = trend.lastChangePoint;
  return {
    chart,
    fingerprint: key.fingerprint,
    metric: key.metric,
    label: info.label,
    unit: info.unit,
    better: info.better,
    clients: key.clients,
    clientsLabel: clientsLabel(key.clients),
    trend,
    sparkline: sparkline(
      points.map((p) => p.median),
      change && { index: change.index, kind: change.kind },
    ),
  };
}

function clientsLabel(clients: number): string {
  return `${clients} client${clients === 1 ? '' : 's'}`;
}

function chartData(group: HistoryAnalysis['series'], id: string): ChartData {
  const first = group[0]!.series;
  const runKey = (p: { date: string; runId: string }) => `${p.date}\u0000${p.runId}`;
  const runs = new Map<string, ChartData['runs'][number]>();
  for (const s of group) {
    for (const p of s.series.points) {
      runs.set(runKey(p), { t: Date.parse(p.date) / 1000, runId: p.runId, sha: p.sha, date: p.date });
    }
  }
  const ordered = [...runs.entries()].sort((a, b) => a[1].t - b[1].t || a[0].localeCompare(b[0]));
  const position = new Map(ordered.map(([key], i) => [key, i]));
  const lines = [...group]
    .sort((a, b) => a.series.key.clients - b.series.key.clients)
    .map((s): LineData => {
      const blank = () => Array<number | null>(ordered.length).fill(null);
      const line: LineData = {
        clients: s.series.key.clients,
        label: clientsLabel(s.series.key.clients),
        median: blank(),
        lower: blank(),
        upper: blank(),
        n: blank(),
        status: s.status,
        needed: s.needed,
        changePoints: s.changePoints.map((c) => ({
          ...c,
          run: position.get(runKey(c.firstAfter))!,
          ...(c.drift ? { endRun: position.get(runKey(c.drift.end))! } : {}),
        })),
      };
      for (const p of s.series.points) {
        const i = position.get(runKey(p))!;
        line.median[i] = p.median;
        line.lower[i] = p.ciLower;
        line.upper[i] = p.ciUpper;
        line.n[i] = p.n;
      }
      return line;
    });
  const changes = new Map<number, ChartData['definitionChanges'][number]>();
  for (const s of group) {
    for (const [k, seg] of s.segments.entries()) {
      if (k === 0) continue;
      const p = s.series.points[seg.start]!;
      const run = position.get(runKey(p))!;
      if (!changes.has(run)) {
        changes.set(run, { run, date: p.date, from: s.segments[k - 1]!.definition, to: seg.definition });
      }
    }
  }
  const info = METRICS[first.key.metric];
  return {
    id,
    fingerprint: first.key.fingerprint,
    facts: first.facts,
    metric: first.key.metric,
    label: info.label,
    unit: info.unit,
    better: info.better,
    runs: ordered.map(([, r]) => r),
    xRange: timeRange(ordered.map(([, r]) => r.t)),
    lines,
    definitionChanges: [...changes.values()].sort((a, b) => a.run - b.run),
  };
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'workload'
  );
}

function uniqueFile(file: string, taken: Set<string>): string {
  let candidate = file;
  for (let i = 2; taken.has(candidate); i++) candidate = file.replace(/\.html$/, `-${i}.html`);
  taken.add(candidate);
  return candidate;
}
