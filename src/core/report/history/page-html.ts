/**
 * The history site's HTML: a pure renderer from HistorySiteData (and the inlined chart library) to files.
 * Every page is self-contained: styles, uPlot and the data are inline, so the site works from file:// or
 * GitHub Pages with no network at view time. Untrusted text (workload names, refs, facts) goes through
 * escapeHtml; the data through scriptJson, so it cannot close its script element; the repository URL of
 * commit links was checked by safeUrl (page-data.ts).
 */
import { formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import { escapeHtml, scriptJson } from '../html-escape.js';
import { isCommitSha, safeUrl } from '../markdown-escape.js';
import type { SeriesChangePoint } from '../../history/history-analysis.js';
import type {
  ChartData,
  CostChartData,
  HistorySiteData,
  SeriesSummary,
  WorkloadPageData,
} from './page-data.js';
import { PAGE_SCRIPT } from './page-script.js';
import { TREND_WINDOW } from '../../history/trend.js';

/** The charting library's script and stylesheet, inlined into every page so nothing is fetched at view time. */
export interface ChartAssets {
  script: string;
  css: string;
}

export interface SiteFile {
  file: string;
  html: string;
}

export function renderHistorySite(data: HistorySiteData, assets: ChartAssets): SiteFile[] {
  return [
    { file: 'index.html', html: renderIndex(data, assets) },
    ...data.workloads.map((w) => ({ file: w.file, html: renderWorkloadPage(data, w, assets) })),
  ];
}

interface Listed {
  workload: WorkloadPageData;
  chart: ChartData;
  line: ChartData['lines'][number];
  cp: SeriesChangePoint;
}

function allChangePoints(data: HistorySiteData, workloads = data.workloads): Listed[] {
  const listed: Listed[] = [];
  for (const workload of workloads)
    for (const chart of workload.charts)
      for (const line of chart.lines)
        for (const cp of line.changePoints) listed.push({ workload, chart, line, cp });
  return listed.sort((a, b) => b.cp.firstAfter.date.localeCompare(a.cp.firstAfter.date));
}

/** "2 regressions, 1 improvement" / "no change points". */
function verdict(listed: readonly Listed[]): string {
  const regressions = listed.filter((l) => l.cp.kind === 'regression').length;
  const improvements = listed.length - regressions;
  if (listed.length === 0) return 'No change points';
  const parts: string[] = [];
  if (regressions > 0) parts.push(`${regressions} regression${regressions === 1 ? '' : 's'}`);
  if (improvements > 0) parts.push(`${improvements} improvement${improvements === 1 ? '' : 's'}`);
  return parts.join(', ');
}

function renderIndex(data: HistorySiteData, assets: ChartAssets): string {
  const listed = allChangePoints(data);
  const series = data.workloads.reduce((n, w) => n + w.series.length, 0);
  const rows = data.workloads
    .flatMap((w) =>
      w.series.map((s, i) => {
        const workload =
          i === 0
            ? `<td class="workload" rowspan="${w.series.length}"><a href="${attr(w.file)}">${esc(w.workload)}</a><br><small>${esc(verdict(allChangePoints(data, [w])))}</small></td>`
            : '';
        return seriesRow(data, s, workload);
      }),
    )
    .join('\n');
  const body = `
<h1>${esc(data.title)}</h1>
<p class="verdict" data-change-points="${listed.length}"><b>${esc(verdict(listed))}</b> in ${series} series over ${plural(data.runs, 'run')}
(E-Divisive means, Student's t-test p &lt; ${esc(formatP(data.options.maxP))}, at least ${data.options.minSegment} runs a side${data.options.minMagnitude > 0 ? `, magnitude &gt; ${esc(formatPct(data.options.minMagnitude * 100))}` : ''}).</p>
${listed.length > 0 ? changePointTable(data, listed, true) : ''}
<h2>Workloads</h2>
<p class="note-plain">One row per series. <i>latest</i>: the median of the newest run; <i>vs recent runs</i>: that
median against the median of the up to ${TREND_WINDOW} runs before it (a description, not a test); <i>trend</i>:
the newest change point, the change the history has evidence for; <i>history</i>: the last runs' medians, the
newest as a dot, the change point as a dashed tick. Dates are UTC.</p>
<table class="series"><thead><tr><th>workload</th><th>series</th><th>latest</th><th>latest run (UTC)</th>
<th>vs recent runs</th><th>trend</th><th>runs</th><th>history</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${costSection(data, assets)}`;
  return page(data.title, body, data.cost.runs.length > 0 ? assets.css : null);
}

/**
 * The index's chart of what each answer cost (drawn by the page script from the cost data), and the runs
 * it leaves out, said.
 */
function costSection(data: HistorySiteData, assets: ChartAssets): string {
  const { cost } = data;
  const left = costLeftOut(cost);
  if (cost.runs.length === 0) {
    return `<h2>What each answer cost</h2>
<p class="note" data-cost-runs="0">No run recorded what its answer cost: nothing to plot${left ? ` (${esc(left)})` : ''}.</p>`;
  }
  return `<h2>What each answer cost</h2>
<p class="note-plain">The wall time of each run's answer (${plural(cost.runs.length, 'run')}, in ${cost.unit === 'min' ? 'minutes' : 'seconds'}) and its stages:
the build (or finding it in the cache), the counted runs (instruction counts, plans, profiles) and the timed rounds; the
checks before measuring, the compiled-code comparison and the analysis count in the wall time only. Hover a point
for the run's commit and what it cost. Dates are UTC.</p>
<div class="chart" id="${attr(cost.id)}" data-cost-runs="${cost.runs.length}"></div>
${left ? `<p class="note">Left out: ${esc(left)}.</p>` : ''}
<pre id="errors" hidden></pre>
<script type="application/json" id="history-data">${scriptJson({ repoUrl: data.repoUrl, timeAxis: data.timeAxis, charts: [], cost })}</script>
<script>${scriptText(assets.script)}</script>
<script>${PAGE_SCRIPT}</script>`;
}

/** "3 runs that recorded no cost (...); 1 runner canary run (...)", or '' when every run is plotted. */
function costLeftOut(cost: CostChartData): string {
  const parts = [
    ...(cost.withoutCost > 0
      ? [
          `${plural(cost.withoutCost, 'run')} that recorded no cost (saved before pgperf recorded it, or stopped by a signal)`,
        ]
      : []),
    ...(cost.canaries > 0
      ? [`${plural(cost.canaries, 'runner canary run')} (a check of the machine, not an answer)`]
      : []),
    ...(cost.undated > 0 ? [`${plural(cost.undated, 'run')} whose start date does not parse`] : []),
  ];
  return parts.join('; ');
}

/** An index row: what a series is at now and where it has been going. */
function seriesRow(data: HistorySiteData, s: SeriesSummary, workloadCell: string): string {
  const { trend } = s;
  const latest = trend.latest;
  const machine = data.fingerprints > 1 ? ` <span class="fp">${esc(s.fingerprint)}</span>` : '';
  const ci = `median of ${latest.n} run${latest.n === 1 ? '' : 's'}, ${Math.round(latest.ciLevel * 100)}% CI [${fmt(latest.ciLower)}, ${fmt(latest.ciUpper)}]`;
  const recent = trend.recent
    ? `${esc(formatPct(trend.recent.change * 100))} (${trend.direction}) vs ${esc(fmt(trend.recent.median))}<br><small>median of the ${plural(trend.recent.runs, 'run')} before</small>`
    : 'first run';
  return (
    `<tr data-series="${attr(`${s.metric}@${s.clients}`)}" data-fingerprint="${attr(s.fingerprint)}">${workloadCell}` +
    `<td>${esc(s.label)}, ${esc(s.clientsLabel)}${machine}</td>` +
    `<td class="latest" title="${attr(ci)}"><b>${esc(fmt(latest.median))}</b> ${esc(s.unit)}</td>` +
    `<td class="date">${esc(utcMinute(latest.date))} ${commitLink(data, latest.sha)}</td>` +
    `<td class="recent" data-direction="${trend.direction ?? 'none'}">${recent}</td>` +
    `<td class="${trend.lastChangePoint?.kind ?? 'none'}">${trendText(data, s)}</td>` +
    `<td class="runs">${trend.runs}</td><td>${sparklineSvg(s)}</td></tr>`
  );
}

/** The trend column: the newest change point, or why there is none. */
function trendText(data: HistorySiteData, s: SeriesSummary): string {
  const { trend } = s;
  const cp = trend.lastChangePoint;
  if (cp)
    return (
      `${cp.kind === 'regression' ? '▼' : '▲'} ${cp.kind}${cp.drift ? ` (drift over ${cp.drift.runs} runs)` : ''} ${esc(formatPct(cp.relativeChange * 100))} ` +
      `${esc(formatPctInterval(cp.ciLower * 100, cp.ciUpper * 100))}<br><small>since <span class="nowrap">${esc(cp.firstAfter.date.slice(0, 10))}</span> ` +
      `(${commitLink(data, cp.firstAfter.sha)}): ${esc(fmt(cp.before))} → ${esc(fmt(cp.after))} ${esc(s.unit)}</small>`
    );
  if (trend.status === 'too-few-points')
    return `not analysed yet: ${trend.runs} of ${trend.needed} runs needed`;
  return `no change point in ${plural(trend.runs, 'run')}`;
}

function sparklineSvg(s: SeriesSummary): string {
  const { sparkline: sp } = s;
  const change = sp.change
    ? `<line x1="${sp.change.x}" x2="${sp.change.x}" y1="0" y2="${sp.height}" stroke="${sp.change.kind === 'regression' ? '#d62728' : '#2ca02c'}" stroke-width="1.5" stroke-dasharray="3 2"/>`
    : '';
  return (
    `<svg class="spark" width="${sp.width}" height="${sp.height}" viewBox="0 0 ${sp.width} ${sp.height}" role="img" ` +
    `aria-label="${attr(`${s.label}, ${s.clientsLabel}: the medians of the last runs`)}">${change}` +
    `<polyline points="${sp.points}" fill="none" stroke="#555" stroke-width="1.2"/>` +
    `<circle cx="${sp.last.x}" cy="${sp.last.y}" r="2.5" fill="#222"/></svg>`
  );
}

/** An ISO 8601 date as "YYYY-MM-DD HH:MM" in UTC; the text itself when it does not parse. */
function utcMinute(date: string): string {
  const t = Date.parse(date);
  return Number.isNaN(t) ? date : new Date(t).toISOString().slice(0, 16).replace('T', ' ');
}

function changePointTable(data: HistorySiteData, listed: readonly Listed[], withWorkload: boolean): string {
  const rows = listed
    .map(
      ({ workload, chart, line, cp }) =>
        `<tr class="${cp.kind}" data-change-point="${attr(`${chart.metric}@${line.clients}`)}">` +
        `<td>${cp.kind}${cp.shape === 'step' ? '' : ` (${cp.shape}${cp.drift ? ` over ${cp.drift.runs} runs` : ''})`}</td>` +
        (withWorkload ? `<td><a href="${attr(workload.file)}">${esc(workload.workload)}</a></td>` : '') +
        `<td>${esc(chart.label)}, ${esc(line.label)}</td>` +
        `<td>${commitLink(data, cp.lastBefore.sha)} .. ${commitLink(data, (cp.drift?.end ?? cp.firstAfter).sha)}</td>` +
        `<td>${esc(cp.firstAfter.date.slice(0, 10))}</td>` +
        `<td>${esc(formatPct(cp.relativeChange * 100))} ${esc(formatPctInterval(cp.ciLower * 100, cp.ciUpper * 100))}</td>` +
        `<td>${esc(fmt(cp.before))} → ${esc(fmt(cp.after))} ${esc(chart.unit)}</td>` +
        `<td>${esc(formatP(cp.p))}</td><td>${cp.nBefore}/${cp.nAfter}</td></tr>`,
    )
    .join('\n');
  return `<table class="change-points"><thead><tr><th>kind</th>${withWorkload ? '<th>workload</th>' : ''}<th>series</th>
<th>last before .. first after</th><th>date</th><th>change [95% CI]</th><th>median</th><th>p</th><th>runs before/after</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

function renderWorkloadPage(data: HistorySiteData, workload: WorkloadPageData, assets: ChartAssets): string {
  const listed = allChangePoints(data, [workload]);
  const charts = workload.charts
    .map((chart) => {
      const short = chart.lines.filter((l) => l.status === 'too-few-points');
      const facts = Object.entries(chart.facts)
        .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`)
        .join('');
      return `<section>
<h2>${esc(chart.label)} (${esc(chart.unit)}, ${chart.better} is better) on <span class="fp">${esc(chart.fingerprint)}</span></h2>
<div class="chart" id="${attr(chart.id)}" data-lines="${chart.lines.length}" data-points="${chart.runs.length}"></div>
${chart.definitionChanges.map((c) => `<p class="note" data-definition-change="${attr(c.to)}">The workload changed on ${esc(c.date.slice(0, 10))} (definition ${esc(c.from)} → ${esc(c.to)}), marked by a grey line: change points are looked for on either side of it, never across.</p>`).join('\n')}
${short.length > 0 ? `<p class="note">Not analysed yet: ${short.map((l) => `${esc(l.label)} has ${plural(l.median.filter((v) => v !== null).length, 'run')}, change points need at least ${l.needed}`).join('; ')}.</p>` : ''}
<details><summary>Machine fingerprint ${esc(chart.fingerprint)}</summary><table>${facts}</table></details>
</section>`;
    })
    .join('\n');
  const body = `
<p><a href="index.html">← all workloads</a></p>
<h1>${esc(workload.workload)}</h1>
<p class="verdict" data-change-points="${listed.length}"><b>${esc(verdict(listed))}</b>; dashed lines mark the first run after each change
(red: regression, green: improvement). Hover a point for its commit, date and median [95% CI].</p>
${listed.length > 0 ? changePointTable(data, listed, false) : ''}
${charts}
<pre id="errors" hidden></pre>
<script type="application/json" id="history-data">${scriptJson({ repoUrl: data.repoUrl, timeAxis: data.timeAxis, charts: workload.charts })}</script>
<script>${scriptText(assets.script)}</script>
<script>${PAGE_SCRIPT}</script>`;
  return page(`${workload.workload} · ${data.title}`, body, assets.css);
}

function page(title: string, body: string, chartCss: string | null): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${chartCss ?? ''}
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 1240px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
tr.regression td:first-child { color: #c00; font-weight: 600; }
tr.improvement td:first-child { color: #080; font-weight: 600; }
.verdict { font-size: 1.1em; }
.fp { font-family: ui-monospace, monospace; font-size: .9em; }
.chart { position: relative; margin: .5em 0; }
.tooltip { position: absolute; z-index: 10; pointer-events: none; background: #fff; border: 1px solid #999;
  box-shadow: 0 2px 6px rgba(0,0,0,.2); padding: .4em .6em; font-size: 12px; min-width: 220px; }
.tooltip table { margin: .2em 0; } .tooltip td { border: 0; padding: 0 .4em 0 0; }
.tooltip .hint { color: #666; }
.note { color: #8a5a00; }
#errors { color: #c00; }
table.change-points td { white-space: nowrap; }
table.series td.workload, table.series td.latest, table.series td.date, table.series td.runs { white-space: nowrap; }
table.series td.regression { color: #c00; }
table.series td.improvement { color: #080; }
table.series td.none { color: #555; }
svg.spark { vertical-align: middle; margin-left: .4em; }
.note-plain { color: #555; max-width: 60em; }
.nowrap { white-space: nowrap; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function commitLink(data: HistorySiteData, sha: string | null): string {
  if (!sha) return '<i>no commit</i>';
  const text = `<code>${esc(sha.slice(0, 10))}</code>`;
  const repo = data.repoUrl === null ? null : safeUrl(data.repoUrl);
  return repo && isCommitSha(sha) ? `<a href="${attr(`${repo}/commit/${sha}`)}">${text}</a>` : text;
}

/** "1 run", "5 runs". */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
}

const esc = escapeHtml;
const attr = escapeHtml;

/** A library's source inside a script element: only a literal "</script" could end it early. */
function scriptText(source: string): string {
  return source.replace(/<\/script/gi, '<\\/script');
}
