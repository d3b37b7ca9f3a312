/**
 * Markdown rendering of a comparison for GitHub: the sticky PR comment and the job summary.
 *
 * Layout, top to bottom: the hidden marker (comment only); one verdict line (icon, overall verdict, the
 * worst cell with its delta and CI, both commits, "partial" when the run did not complete); the design
 * line; per head arm and workload a table (clients | n | base median | head median | delta % [95% CI] |
 * p (adj.) | verdict) with the cells' notes and a mermaid scaling chart; then collapsed details
 * (environment, builds, settings, rounds and order, raw samples, warnings).
 *
 * Size: a PR comment must stay under GitHub's 65,536-character limit. When the whole report does not fit
 * in `maxLength`, details are dropped in TRIM_STEPS order (raw samples first, then the execution order,
 * then the environment facts, ...) until it does, and the report says what was left out. The verdict line
 * and the tables are never trimmed; only a report whose tables alone exceed the limit is cut, at a line
 * boundary, with a note.
 *
 * The job summary (renderJobSummary) is the same report without the marker and with the job summary's own
 * limit (1 MiB per step, counted in UTF-8 bytes), so it normally keeps every detail.
 *
 * All text that comes from users or the machine (refs, labels, workload and script names, warnings,
 * failure reasons) goes through escapeMarkdown; mermaid titles through mermaidText. Pure: no I/O.
 */
import { formatDeltaCi, formatLevel, formatP, formatPAdjusted, formatPct } from '../compare/format.js';
import { extremeCell, type ArmCell } from '../compare/extreme-cell.js';
import type {
  ArmComparison,
  CellComparison,
  CurveComparison,
  OverallVerdict,
  RunComparison,
} from '../compare/types.js';
import { METRICS, type MetricName } from '../results/metrics.js';
import type { ArmInfo, ClientInfo, Environment, RunResult, Sample } from '../results/types.js';
import { escapeMarkdown, markdownLink, shortSha } from './markdown-escape.js';
import { describeStoredBaseline } from './comparison-text.js';
import { curveLine } from './curve-line.js';
import { CHART_LINES, renderScalingChart } from './mermaid-chart.js';
import { reasonPhrase } from './reasons.js';
import { waitEventSections } from './wait-event-section.js';

/** A commit the report names: the arm's label, and where known its sha, ref and why it was chosen. */
export interface CommitInfo {
  label: string;
  sha?: string;
  ref?: string;
  /** How the commit was chosen, e.g. "merge-base of main and PR head". */
  chosenBy?: string;
}

export interface MarkdownReportInput {
  result: RunResult;
  comparison: RunComparison;
  /** Identifies the sticky comment (see commentMarker); any text, encoded in the marker. */
  commentId: string;
  /** The baseline commit (arms[0]); defaults to the results' recorded source, else the arm's label. */
  base?: CommitInfo;
  /** The head commit (the first head arm); defaults like `base`. */
  head?: CommitInfo;
  /** The workflow run, linked from the report and from "see the results artifact". */
  runUrl?: string;
  /** Upper bound on the report's length in characters (UTF-16 code units); DEFAULT_COMMENT_MAX_LENGTH. */
  maxLength?: number;
}

/** The job summary takes the same input without the comment id; maxLength counts UTF-8 bytes there. */
export type JobSummaryInput = Omit<MarkdownReportInput, 'commentId'>;

/** GitHub rejects issue and PR comment bodies longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** The default bound for a comment: below GITHUB_COMMENT_LIMIT, leaving room for what a caller appends. */
export const DEFAULT_COMMENT_MAX_LENGTH = 65_000;
/** GitHub's limit of a step's job summary ($GITHUB_STEP_SUMMARY), in bytes. */
export const GITHUB_JOB_SUMMARY_LIMIT_BYTES = 1024 * 1024;
/** The default bound for a job summary, in UTF-8 bytes, with the same kind of headroom. */
export const DEFAULT_JOB_SUMMARY_MAX_BYTES = 1_000_000;

/** Icon and wording per verdict: the headline uses `title`, table cells use `word`. */
export const VERDICT_DISPLAY: Record<OverallVerdict, { icon: string; title: string; word: string }> = {
  regression: { icon: '❌', title: 'Regression', word: 'regression' },
  improvement: { icon: '🚀', title: 'Improvement', word: 'improvement' },
  'no-change': { icon: '✅', title: 'No change', word: 'no change' },
  inconclusive: { icon: '❔', title: 'Inconclusive', word: 'inconclusive' },
  mixed: { icon: '⚠️', title: 'Mixed: regressions and improvements', word: 'mixed' },
};

const MARKER_PREFIX = '<!-- pgperf:comment-id=';

/**
 * The hidden first line that finds the comment again: `<!-- pgperf:comment-id=<id> -->`. The id is
 * percent-encoded (encodeURIComponent), so it can never contain `>` and end the HTML comment early, and
 * different ids always give different markers; "pgperf-main" stays as it is.
 *
 * @throws Error for an empty id.
 */
export function commentMarker(id: string): string {
  if (id.trim() === '') throw new Error("the comment id must not be empty; use e.g. 'pgperf'");
  return `${MARKER_PREFIX}${encodeURIComponent(id)} -->`;
}

/** The PR comment: the marker, then the report, at most `maxLength` characters. */
export function renderMarkdownReport(input: MarkdownReportInput): string {
  return renderReport(input, {
    marker: commentMarker(input.commentId),
    maxSize: input.maxLength ?? DEFAULT_COMMENT_MAX_LENGTH,
    size: (text) => text.length,
    limitText: `${grouped(input.maxLength ?? DEFAULT_COMMENT_MAX_LENGTH)} characters (a GitHub comment holds at most ${grouped(GITHUB_COMMENT_LIMIT)})`,
  });
}

/**
 * The job summary: the same report without the marker (a summary is replaced, not searched for), bounded
 * by the job summary's limit in UTF-8 bytes (`maxLength`, default DEFAULT_JOB_SUMMARY_MAX_BYTES).
 */
export function renderJobSummary(input: JobSummaryInput): string {
  const encoder = new TextEncoder();
  return renderReport(input, {
    marker: null,
    maxSize: input.maxLength ?? DEFAULT_JOB_SUMMARY_MAX_BYTES,
    size: (text) => encoder.encode(text).length,
    limitText: `${grouped(input.maxLength ?? DEFAULT_JOB_SUMMARY_MAX_BYTES)} bytes (GitHub's job summary limit is 1 MiB)`,
  });
}

function grouped(n: number): string {
  return n.toLocaleString('en-US');
}

/** What is dropped, in this order, until the report fits; each step keeps the ones before it. */
export const TRIM_STEPS = [
  { id: 'samples', what: 'raw samples omitted' },
  { id: 'order', what: 'execution order omitted' },
  { id: 'facts', what: 'environment facts omitted' },
  { id: 'warnings', what: 'warnings shortened' },
  { id: 'details', what: 'all other details omitted' },
  { id: 'charts', what: 'scaling charts omitted' },
  { id: 'notes', what: 'per-cell notes omitted' },
] as const;
type TrimId = (typeof TRIM_STEPS)[number]['id'];

interface RenderOptions {
  marker: string | null;
  maxSize: number;
  size: (text: string) => number;
  limitText: string;
}

interface Context {
  result: RunResult;
  c: RunComparison;
  input: JobSummaryInput;
  metric: { label: string; unit: string; decimals: number };
  limitText: string;
}

function renderReport(input: JobSummaryInput, options: RenderOptions): string {
  if (!(options.maxSize > 0)) {
    throw new RangeError(`maxLength must be a positive number, got ${options.maxSize}`);
  }
  const { result, comparison } = input;
  const info = METRICS[comparison.metric];
  const ctx: Context = {
    result,
    c: comparison,
    input,
    metric: { label: info.label, unit: info.unit, decimals: info.unit === 'ms' ? 3 : 1 },
    limitText: options.limitText,
  };
  const top = [
    [options.marker, headline(ctx)].filter((l): l is string => l !== null).join('\n'),
    ...designLines(ctx),
  ];
  let text = '';
  for (let steps = 0; steps <= TRIM_STEPS.length; steps++) {
    const trims = new Set<TrimId>(TRIM_STEPS.slice(0, steps).map((s) => s.id));
    text = assemble(ctx, top, trims);
    if (options.size(text) <= options.maxSize) return text;
  }
  return cutToSize(text, options);
}

function assemble(ctx: Context, top: string[], trims: ReadonlySet<TrimId>): string {
  const blocks = [...top];
  for (const arm of ctx.c.comparisons) blocks.push(...armBlocks(ctx, arm, trims));
  if (trims.size > 0) blocks.push(trimNote(ctx, trims));
  if (!trims.has('details')) blocks.push(...detailBlocks(ctx, trims));
  return `${blocks.join('\n\n')}\n`;
}

/** Last resort when even the tables do not fit: cut at a line boundary and say so. */
function cutToSize(text: string, options: RenderOptions): string {
  const note = `\n\n✂️ **Cut to fit in ${options.limitText}**: the tables are incomplete; the results artifact has them all.\n`;
  // Both measures count at least one per UTF-16 code unit, so nothing past maxSize can fit.
  if (options.size(note) >= options.maxSize) {
    let cut = text.slice(0, options.maxSize);
    while (options.size(cut) > options.maxSize) cut = cut.slice(0, -1);
    return cut;
  }
  let end = Math.min(text.length, options.maxSize);
  while (end > 0 && options.size(text.slice(0, end)) + options.size(note) > options.maxSize) {
    const line = text.lastIndexOf('\n', end - 1);
    end = line > 0 ? line : Math.max(0, Math.min(end - 1, options.maxSize - options.size(note)));
  }
  return `${text.slice(0, end)}${note}`;
}

// ---------------------------------------------------------------------------------------------------
// Verdict line and design

function headline(ctx: Context): string {
  const { c, result } = ctx;
  const v = VERDICT_DISPLAY[c.verdict];
  const parts = [`${v.icon} **${v.title}**`];
  if (c.comparisons.length === 0) {
    parts.push(
      `nothing to compare: the results list ${result.arms.length} arm(s), a comparison needs a base and a head`,
    );
  } else {
    const worst = extremeCell(c, 'worst');
    parts.push(worst ? `worst cell: ${describeCell(ctx, worst)}` : 'no cell could be tested');
    if (c.verdict === 'improvement') {
      const best = extremeCell(c, 'best');
      if (best && best.cell !== worst?.cell) parts.push(`best: ${describeCell(ctx, best)}`);
    }
    parts.push(commits(ctx));
  }
  if (result.baseline) parts.push(`📦 ${escapeMarkdown(describeStoredBaseline(result.baseline))}`);
  const partial = partialText(result);
  if (partial) parts.push(`⚠️ ${partial}`);
  return parts.join(' · ');
}

/** "tpcb at 64 clients -9.87% [95% CI -10.52%, -9.13%]" (with the head's label when there are several). */
function describeCell(ctx: Context, { arm, cell }: ArmCell): string {
  const who = ctx.c.comparisons.length > 1 ? `${escapeMarkdown(arm.head)}: ` : '';
  const what = cell.metric === ctx.c.metric ? '' : ` ${METRICS[cell.metric].label}`;
  const where = `${who}${escapeMarkdown(cell.workload)} at ${clientsText(cell.clients)}${what}`;
  if (cell.deltaPct === null) return where;
  const ci = cell.ci95
    ? ` [${formatLevel(Math.min(cell.ci95.level, cell.ci95.achievedLevel))} CI ${formatPct(cell.ci95.lowerPct)}, ${formatPct(cell.ci95.upperPct)}]`
    : '';
  return `${where} **${formatPct(cell.deltaPct)}**${ci}`;
}

/** "head `9f8e7d6` (feature/x) vs base `1a2b3c4` (main, merge-base of main and PR head)". */
function commits(ctx: Context): string {
  const { result, c, input } = ctx;
  const source = recordedSource(result);
  const baseArm = result.arms[0];
  const heads = c.comparisons.map((a) => a.head);
  const firstHead = result.arms.find((a) => a.label === heads[0]);
  const head = describeCommit('head', input.head ?? fromSource(source?.head, firstHead), firstHead);
  const more =
    heads.length > 1
      ? ` (+ ${heads
          .slice(1)
          .map((h) => `**${escapeMarkdown(h)}**`)
          .join(', ')})`
      : '';
  const base = describeCommit('base', input.base ?? fromSource(source?.base, baseArm), baseArm);
  return `${head}${more} vs ${base}`;
}

interface RecordedCommit {
  ref?: unknown;
  sha?: unknown;
  chosenBy?: unknown;
}

/** The commits recorded in the results (RunResult.source, written by newer versions), read defensively. */
function recordedSource(result: RunResult): { base?: RecordedCommit; head?: RecordedCommit } | undefined {
  const source: unknown = (result as { source?: unknown }).source;
  return typeof source === 'object' && source !== null ? (source as { base?: RecordedCommit }) : undefined;
}

function fromSource(recorded: RecordedCommit | undefined, arm: ArmInfo | undefined): CommitInfo | undefined {
  if (!recorded || !arm) return undefined;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const info: CommitInfo = { label: arm.label };
  const sha = text(recorded.sha);
  const ref = text(recorded.ref);
  const chosenBy = text(recorded.chosenBy);
  if (sha) info.sha = sha;
  if (ref) info.ref = ref;
  if (chosenBy) info.chosenBy = chosenBy;
  return info;
}

function describeCommit(
  role: 'base' | 'head',
  info: CommitInfo | undefined,
  arm: ArmInfo | undefined,
): string {
  const label = info?.label ?? arm?.label ?? role;
  const buildSha = arm?.build?.sha;
  const sha = info?.sha ?? (typeof buildSha === 'string' ? buildSha : undefined);
  const words = [armName(role, label)];
  if (sha) words.push(shortSha(sha));
  const extra = [info?.ref, info?.chosenBy].filter((s): s is string => !!s && s.trim() !== '');
  if (extra.length > 0) words.push(`(${extra.map((s) => escapeMarkdown(s, 120)).join(', ')})`);
  return words.join(' ');
}

/** "partial results: the run was interrupted (SIGINT)" when the run did not complete. */
function partialText(result: RunResult): string | null {
  const reason = result.stopReason ? ` (${escapeMarkdown(result.stopReason, 200)})` : '';
  switch (result.status) {
    case 'complete':
      return null;
    case 'running':
      return `**partial results**: the run had not finished${reason}`;
    case 'interrupted':
      return `**partial results**: the run was interrupted${reason}`;
    case 'failed':
      return `**partial results**: the run failed${reason}`;
    default:
      return `**partial results**: status ${escapeMarkdown(String(result.status), 40)}${reason}`;
  }
}

const SPENDING_NAMES = { 'obrien-fleming': "O'Brien-Fleming", pocock: 'Pocock' } as const;

function designLines(ctx: Context): string[] {
  const { c, result, input, metric } = ctx;
  const families = [...new Set(c.comparisons.map((a) => a.familySize))].join('/');
  const parts = [
    `${metric.label} (${metric.unit}), ${c.better} is better`,
    // Latency gates (`metrics: [tps, p99]`): each is a hypothesis per cell in the same Holm family.
    ...c.gatedMetrics
      .filter((m) => m !== c.metric)
      .map((m) => `gated too: ${METRICS[m].label} (${METRICS[m].unit}), ${METRICS[m].better} is better`),
    `α ${formatP(c.alpha)}${families === '' ? '' : `, Holm over ${families} ${c.gatedMetrics.length > 1 ? 'cell-metric hypotheses' : 'cell(s)'}`}`,
    `threshold ±${c.thresholdPct}%`,
    `${result.plan?.rounds ?? '?'} rounds`,
  ];
  if (c.sequential) {
    const s = c.sequential;
    const spending = s.spending ? `, ${SPENDING_NAMES[s.spending]} α-spending` : '';
    parts.push(
      `sequential look ${s.look} of ${s.looks} (per-look α ${formatP(s.perLookAlpha)}; looks at ` +
        `${s.schedule.join(', ')} rounds${spending})`,
    );
  }
  const warnings = allWarnings(ctx).length;
  if (warnings > 0) parts.push(`${warnings} warning(s) below`);
  if (input.runUrl !== undefined) parts.push(markdownLink('workflow run', input.runUrl));
  parts.push(`pgperf ${escapeMarkdown(result.pgperfVersion ?? '?', 40)}`);
  return [
    parts.join(' · '),
    '<sub>n: usable runs base/head · delta: Hodges-Lehmann shift of head vs base with its 95% CI (@x%: the ' +
      'level the sample sizes reach) · p: two-sided Mann-Whitney (Holm-adjusted)</sub>',
  ];
}

// ---------------------------------------------------------------------------------------------------
// Tables and charts

function armBlocks(ctx: Context, arm: ArmComparison, trims: ReadonlySet<TrimId>): string[] {
  const blocks: string[] = [];
  if (ctx.c.comparisons.length > 1) {
    const v = VERDICT_DISPLAY[arm.verdict];
    blocks.push(`## ${v.icon} ${escapeMarkdown(arm.head)} vs ${escapeMarkdown(arm.baseline)}: ${v.word}`);
  }
  const all = [...arm.cells, ...arm.otherMetricCells];
  for (const workload of [...new Set(all.map((cell) => cell.workload))]) {
    const inWorkload = all.filter((cell) => cell.workload === workload);
    const v = VERDICT_DISPLAY[arm.workloadVerdicts[workload] ?? 'inconclusive'];
    const threshold = inWorkload[0]?.thresholdPct ?? ctx.c.thresholdPct;
    blocks.push(`### ${v.icon} ${escapeMarkdown(workload)}: ${v.word} (threshold ±${threshold}%)`);
    const cells = inWorkload.filter((cell) => cell.metric === ctx.c.metric);
    if (cells.length > 0) blocks.push(table(ctx, cells));
    // The latency rows of a workload that gates on them (`metrics: [tps, p99]`).
    for (const metric of ctx.c.gatedMetrics.filter((m) => m !== ctx.c.metric)) {
      const rows = inWorkload.filter((cell) => cell.metric === metric);
      if (rows.length === 0) continue;
      const info = METRICS[metric];
      const rise = info.better === 'lower' ? ': a rise is a regression' : '';
      blocks.push(`**${info.label}** (${info.unit}, ${info.better} is better${rise})`);
      blocks.push(table(ctx, rows, metric));
    }
    if (!trims.has('notes')) {
      const notes = inWorkload.flatMap((cell) =>
        [...cell.notes, ...(cell.unstable && cell.metric === ctx.c.metric ? [cell.unstable] : [])].map(
          (n) => `- ${clientsText(cell.clients)}: ${escapeMarkdown(n.message, 500)}`,
        ),
      );
      if (notes.length > 0) blocks.push(notes.join('\n'));
    }
    const curve = arm.curves.find((k) => k.workload === workload);
    if (curve && !trims.has('charts')) blocks.push(...chartBlocks(ctx, arm, curve));
  }
  return blocks;
}

function table(ctx: Context, cells: readonly CellComparison[], metric?: MetricName): string {
  const info = metric ? METRICS[metric] : ctx.metric;
  const decimals = metric ? (info.unit === 'ms' ? 3 : 1) : ctx.metric.decimals;
  const unit = info.label;
  const rows = [
    `| clients | n | base ${unit} (median) | head ${unit} (median) | delta % [95% CI] | p (adj.) | verdict |`,
    '|---:|---:|---:|---:|---:|---:|:---|',
    ...cells.map((cell) => `| ${row(cell, decimals).join(' | ')} |`),
  ];
  return rows.join('\n');
}

function row(cell: CellComparison, decimals: number): string[] {
  const median = (v: number | null) => (v === null ? '–' : groupedNumber(v, decimals));
  const delta = formatDeltaCi(cell) ?? '–';
  const p = formatPAdjusted(cell) ?? '–';
  const v = VERDICT_DISPLAY[cell.verdict];
  const why = reasonPhrase(cell);
  return [
    String(cell.clients),
    `${cell.base.n}/${cell.head.n}`,
    median(cell.base.median),
    median(cell.head.median),
    delta,
    p,
    `${v.icon} ${v.word}${why ? ` (${why})` : ''}${cell.unstable ? ' · ⚠️ unstable, not gated' : ''}`,
  ];
}

function clientsText(clients: number): string {
  return `${clients} client${clients === 1 ? '' : 's'}`;
}

/** A number with thousands separators for tables ("12,345.6"); charts use plain numbers. */
function groupedNumber(value: number, decimals: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** The legend sentence and the chart, when base and head share at least two client counts. */
function chartBlocks(ctx: Context, arm: ArmComparison, curve: CurveComparison): string[] {
  const headByClients = new Map(curve.head.points.map((p) => [p.clients, p.medianTps]));
  const points = curve.base.points.flatMap((p) => {
    const head = headByClients.get(p.clients);
    return head === undefined ? [] : [{ clients: p.clients, base: p.medianTps, head }];
  });
  if (points.length < 2) return [];
  const [baseLine, headLine] = CHART_LINES;
  const legend =
    `Median TPS by client count (the chart has no legend): the **${baseLine.colour}** line (first) is ` +
    `${armName('base', arm.baseline)}, the **${headLine.colour}** line (second) is ${armName('head', arm.head)}. ` +
    `Curve: ${escapeMarkdown(
      curveLine(curve, (v) => groupedNumber(v, 0), '–'),
      600,
    )}.`;
  const chart = renderScalingChart({
    title: `${curve.workload}: median TPS`,
    yAxisTitle: 'TPS',
    clients: points.map((p) => p.clients),
    base: points.map((p) => p.base),
    head: points.map((p) => p.head),
  });
  return [legend, chart.join('\n')];
}

/** "base", or "base **pg17**" when the arm's label is not the role's name. */
function armName(role: 'base' | 'head', label: string): string {
  return label === role ? role : `${role} **${escapeMarkdown(label)}**`;
}

// ---------------------------------------------------------------------------------------------------
// Details

function trimNote(ctx: Context, trims: ReadonlySet<TrimId>): string {
  const what = TRIM_STEPS.filter((s) => trims.has(s.id)).map((s) => s.what);
  return (
    `✂️ **Trimmed to fit in ${ctx.limitText}:** ${what.join(', ')}; ` +
    `see the results artifact${artifactWhere(ctx)}.`
  );
}

function artifactWhere(ctx: Context): string {
  return ctx.input.runUrl === undefined ? '' : ` of the ${markdownLink('workflow run', ctx.input.runUrl)}`;
}

function details(summary: string, body: string[]): string {
  return [`<details><summary>${summary}</summary>`, '', ...body, '', '</details>'].join('\n');
}

function omitted(ctx: Context, what: string): string {
  return `_${what} omitted for size: see the results artifact${artifactWhere(ctx)}._`;
}

function detailBlocks(ctx: Context, trims: ReadonlySet<TrimId>): string[] {
  const warnings = allWarnings(ctx);
  const blocks = [
    details('Environment', environment(ctx, trims)),
    details('Builds', builds(ctx)),
    details('Settings', settings(ctx)),
    details('Rounds and order', roundsAndOrder(ctx, trims)),
    details(
      trims.has('samples') ? 'Raw samples (omitted)' : `Raw samples (${ctx.metric.label} per run)`,
      trims.has('samples') ? [omitted(ctx, 'Raw samples')] : rawSamples(ctx),
    ),
  ];
  for (const section of waitEventSections(ctx.result, ctx.c)) {
    blocks.push(
      details(`Why it changed: wait events, ${escapeMarkdown(section.title, 120)}`, [section.markdown]),
    );
  }
  if (warnings.length > 0) {
    blocks.push(details(`⚠️ Warnings (${warnings.length})`, warningList(warnings, trims.has('warnings'))));
  }
  return blocks;
}

function keyValueTable(header: [string, string], rows: Array<[string, string]>): string[] {
  return [`| ${header[0]} | ${header[1]} |`, '|:---|:---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)];
}

function environment(ctx: Context, trims: ReadonlySet<TrimId>): string[] {
  const { result } = ctx;
  const env: Environment | undefined = result.environment;
  const rows: Array<[string, string]> = [];
  if (env) {
    rows.push(
      ['CPU', `${escapeMarkdown(env.cpuModel)} (${env.cpuCount} logical CPUs, ${escapeMarkdown(env.arch)})`],
      ['memory', `${(env.memoryBytes / 2 ** 30).toFixed(1)} GiB`],
      ['OS', escapeMarkdown(env.os)],
      ['kernel', escapeMarkdown(env.kernel)],
      ['host', escapeMarkdown(env.hostname)],
      ['Node.js', escapeMarkdown(env.nodeVersion)],
      ['settings hash', escapeMarkdown(env.settingsHash)],
    );
    if (env.controls?.length) {
      // One phrase per control and value, however many CPUs had their governor set.
      const held = [...new Set(env.controls.map((c) => `${c.control} ${c.to}`))].join('; ');
      rows.push(['controls (restored after)', escapeMarkdown(held, 300)]);
    }
  }
  rows.push(
    ['pgperf', escapeMarkdown(result.pgperfVersion ?? '?')],
    [
      'run',
      `${escapeMarkdown(result.startedAt ?? '?')} to ${escapeMarkdown(result.updatedAt ?? '?')}, ${escapeMarkdown(result.status)}`,
    ],
  );
  const lines = keyValueTable(['machine', 'value'], rows);
  const facts = Object.entries(env?.facts ?? {});
  if (facts.length > 0) {
    lines.push('');
    if (trims.has('facts')) lines.push(omitted(ctx, `${facts.length} environment facts`));
    else
      lines.push(
        ...keyValueTable(
          ['fact', 'value'],
          facts.map(([k, v]) => [escapeMarkdown(k), escapeMarkdown(String(v), 300)]),
        ),
      );
  }
  if (!env) lines.push('', '_The results record no environment._');
  return lines;
}

/** Keys of a build record shown first, in this order; the rest follow as recorded. */
const BUILD_KEYS = ['sha', 'ref', 'compiler', 'options', 'buildOptions', 'cacheHit'];

function builds(ctx: Context): string[] {
  const rows = ctx.result.arms.map((arm) => {
    const build = arm.build
      ? Object.entries(arm.build)
          .sort(([a], [b]) => buildKeyRank(a) - buildKeyRank(b))
          .map(([k, v]) => `${escapeMarkdown(k)}: ${escapeMarkdown(recordValue(v), 300)}`)
          .join('; ')
      : 'not built by pgperf';
    return `| ${escapeMarkdown(arm.label)} | ${escapeMarkdown(arm.binDir ?? '?')} | ${escapeMarkdown(arm.serverVersion ?? '?')} | ${build} |`;
  });
  const lines = ['| arm | bin dir | server version | build |', '|:---|:---|:---|:---|', ...rows];
  const clients: ClientInfo[] = ctx.result.clients ?? [];
  for (const client of clients) {
    lines.push(
      '',
      `Client: ${escapeMarkdown(client.version.startsWith(client.tool) ? client.version : `${client.tool} ${client.version}`)} ` +
        `from ${escapeMarkdown(client.binDir)} drove every arm.`,
    );
  }
  return lines;
}

function buildKeyRank(key: string): number {
  const i = BUILD_KEYS.indexOf(key);
  return i === -1 ? BUILD_KEYS.length : i;
}

/** A recorded value as short text: strings as they are, arrays joined, objects as "key=value" pairs. */
function recordValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(recordValue).join(' ');
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value)
      .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
      .join(', ');
  }
  return String(value);
}

function settings(ctx: Context): string[] {
  const { result } = ctx;
  const overrides = result.arms.flatMap((arm) =>
    Object.entries(arm.settingOverrides ?? {}).map(
      ([name, value]) =>
        `| ${escapeMarkdown(arm.label)} | ${escapeMarkdown(name)} | ${escapeMarkdown(String(value), 200)} |`,
    ),
  );
  const lines =
    overrides.length === 0
      ? ['No per-arm overrides: every arm ran with the same postgresql.conf.']
      : ['Per-arm overrides:', '', '| arm | setting | value |', '|:---|:---|:---|', ...overrides];
  const workloads = Object.entries(result.workloads ?? {});
  if (workloads.length > 0) {
    lines.push(
      '',
      '| workload | script | query mode | scale | duration (s) | threshold | settings |',
      '|:---|:---|:---|---:|---:|---:|:---|',
      ...workloads.map(([name, spec]) => workloadRow(name, spec)),
    );
  }
  return lines;
}

function workloadRow(name: string, spec: unknown): string {
  const w = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : {};
  const text = (v: unknown) => (v === undefined || v === null ? '–' : escapeMarkdown(recordValue(v), 200));
  let script = text(w.builtin ?? w.script);
  if (Array.isArray(w.scripts)) {
    script = w.scripts
      .map((s) => {
        const entry = typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : {};
        const file = typeof entry.file === 'string' ? (entry.file.split('/').pop() ?? entry.file) : '?';
        return escapeMarkdown(entry.weight === undefined ? file : `${file}@${String(entry.weight)}`, 120);
      })
      .join(', ');
  }
  if (typeof w.pipeline === 'number') script += ` (pipeline ${w.pipeline})`;
  const conf =
    typeof w.settings === 'object' && w.settings !== null
      ? Object.entries(w.settings)
          .map(([k, v]) => `${escapeMarkdown(k)} = ${escapeMarkdown(String(v), 100)}`)
          .join('; ')
      : '';
  const threshold = typeof w.threshold === 'number' ? `${w.threshold}%` : 'default';
  return `| ${escapeMarkdown(name)} | ${script} | ${text(w.queryMode)} | ${text(w.scale)} | ${text(w.duration)} | ${threshold} | ${conf || '–'} |`;
}

function roundsAndOrder(ctx: Context, trims: ReadonlySet<TrimId>): string[] {
  const { result } = ctx;
  const plan = result.plan;
  const executed = plan?.executed ?? [];
  const completed = result.samples.reduce((max, s) => (s.status === 'ok' ? Math.max(max, s.round) : max), 0);
  const measured = executed.filter((r) => r.kind === 'measured').length;
  const warmups = executed.length - measured;
  const retries = executed.filter((r) => r.attempt > 1).length;
  const failed = result.samples.filter((s) => s.status !== 'ok').length;
  const lines = [
    `Seed ${plan?.seed ?? '?'}, arm order ${escapeMarkdown(String(plan?.order ?? '?'))}, ${plan?.rounds ?? '?'} ` +
      `rounds planned, ${completed} with results; ${measured} measured runs, ${warmups} warm-ups, ` +
      `${retries} retries, ${failed} failed runs.`,
  ];
  if (executed.length === 0) {
    lines.push('', '_The results record no execution order._');
  } else if (trims.has('order')) {
    lines.push('', omitted(ctx, 'The execution order'));
  } else {
    lines.push(
      '',
      'Runs in the order they ran, per round and cell (w: warm-up, ✗: failed, #n: attempt n):',
      '',
      ...executionOrder(executed),
    );
  }
  return lines;
}

function executionOrder(executed: NonNullable<RunResult['plan']>['executed']): string[] {
  const lines: string[] = [];
  let round: number | null = null;
  let groups: string[] = [];
  let cell = '';
  let runs: string[] = [];
  const flushCell = () => {
    if (runs.length > 0) groups.push(`${cell} ${runs.join(' ')}`);
    runs = [];
  };
  const flushRound = () => {
    flushCell();
    if (round !== null) lines.push(`- round ${round}: ${groups.join(' · ')}`);
    groups = [];
  };
  for (const run of executed) {
    if (run.round !== round) {
      flushRound();
      round = run.round;
    }
    const id = `${escapeMarkdown(run.workload)}@${run.clients}:`;
    if (id !== cell) {
      flushCell();
      cell = id;
    }
    const marks = [
      run.kind === 'warmup' ? 'w' : '',
      run.status === 'failed' ? '✗' : '',
      run.attempt > 1 ? `#${run.attempt}` : '',
    ].join('');
    runs.push(`${escapeMarkdown(run.arm)}${marks ? `(${marks})` : ''}`);
  }
  flushRound();
  return lines;
}

function rawSamples(ctx: Context): string[] {
  const { result, c } = ctx;
  const byCell = new Map<string, Map<string, Sample[]>>();
  const key = (workload: string, clients: number) => JSON.stringify([workload, clients]);
  const cells = [...(result.plan?.cells ?? []), ...result.samples];
  for (const { workload, clients } of cells) {
    if (!byCell.has(key(workload, clients))) byCell.set(key(workload, clients), new Map());
  }
  for (const s of result.samples) {
    const arms = byCell.get(key(s.workload, s.clients))!;
    arms.set(s.arm, [...(arms.get(s.arm) ?? []), s]);
  }
  const armOrder = result.arms.map((a) => a.label);
  const rows: string[] = [];
  for (const [cellKey, arms] of byCell) {
    const [workload, clients] = JSON.parse(cellKey) as [string, number];
    const labels = [...new Set([...armOrder.filter((a) => arms.has(a)), ...arms.keys()])];
    for (const arm of labels) {
      const samples = [...(arms.get(arm) ?? [])].sort((a, b) => a.round - b.round || a.attempt - b.attempt);
      const values = samples.map((s) => {
        const v = s.metrics[c.metric];
        if (s.status !== 'ok') return '✗';
        return v === undefined || !Number.isFinite(v) ? '?' : v.toFixed(ctx.metric.decimals);
      });
      rows.push(
        `| ${escapeMarkdown(workload)} | ${clients} | ${escapeMarkdown(arm)} | ${values.join(', ') || '–'} |`,
      );
    }
  }
  if (rows.length === 0) return ['_No samples recorded._'];
  return [
    `In round order; ✗: failed run (excluded), ?: no ${ctx.metric.label} value.`,
    '',
    `| workload | clients | arm | ${ctx.metric.label} per run |`,
    '|:---|---:|:---|:---|',
    ...rows,
  ];
}

/** The run's warnings, then the comparison's that are not already among them (compareRun repeats them). */
function allWarnings(ctx: Context): string[] {
  const run = ctx.result.warnings ?? [];
  const seen = new Set(run);
  return [...run, ...ctx.c.warnings.filter((w) => !seen.has(w))];
}

/** At most this many warnings, of at most this many characters, once warnings have to be shortened. */
const SHORT_WARNINGS = { count: 20, chars: 300 };

function warningList(warnings: readonly string[], shorten: boolean): string[] {
  if (!shorten) return warnings.map((w) => `- ${escapeMarkdown(w)}`);
  const shown = warnings
    .slice(0, SHORT_WARNINGS.count)
    .map((w) => `- ${escapeMarkdown(w, SHORT_WARNINGS.chars)}`);
  const rest = warnings.length - SHORT_WARNINGS.count;
  if (rest > 0) shown.push(`- … and ${rest} more in the results artifact`);
  return shown;
}
