/**
 * The history site as data: per workload, one chart per fingerprint × metric with one line per client
 * count over the runs (by date), each point's commit, median and CI, and the change points to mark.
 * Computed from a HistoryAnalysis; renderHistorySite turns it into HTML.
 */
import { METRICS, type MetricName } from '../../core/results/metrics.js';
import { safeUrl } from '../../core/report/markdown-escape.js';
import type { HistoryAnalysis, SeriesChangePoint } from './analyse.js';

export interface HistorySiteData {
  title: string;
  /** Commit links are `${repoUrl}/commit/${sha}`; null: commits are shown without links (also when the
   * given URL is not an http(s) URL). */
  repoUrl: string | null;
  runs: number;
  options: HistoryAnalysis['options'];
  workloads: WorkloadPageData[];
}

export interface WorkloadPageData {
  workload: string;
  /** File name of the workload's page in the site. */
  file: string;
  charts: ChartData[];
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
  /** One entry per run that measured any line of the chart, oldest first. */
  runs: Array<{ t: number; runId: string; sha: string | null; date: string }>;
  lines: LineData[];
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
  changePoints: Array<SeriesChangePoint & { run: number }>;
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
    return { workload, file, charts };
  });
  return {
    title: options.title ?? 'pgperf history',
    repoUrl: options.repoUrl ? safeUrl(options.repoUrl.replace(/\/+$/, '')) : null,
    runs: analysis.runs,
    options: analysis.options,
    workloads,
  };
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
        label: `${s.series.key.clients} client${s.series.key.clients === 1 ? '' : 's'}`,
        median: blank(),
        lower: blank(),
        upper: blank(),
        n: blank(),
        status: s.status,
        needed: s.needed,
        changePoints: s.changePoints.map((c) => ({ ...c, run: position.get(runKey(c.firstAfter))! })),
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
    lines,
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
