/**
 * The top of the markdown report: one verdict line (icon, overall verdict, the worst cell with its delta
 * and CI, both commits, the stored baseline, "partial" when the run did not complete) and the design
 * line (metrics, α and Holm family, threshold, rounds, sequential look, links) with the column legend.
 */
import { formatLevel, formatP, formatPct } from '../compare/format.js';
import { extremeCell, type ArmCell } from '../compare/extreme-cell.js';
import { METRICS } from '../results/metrics.js';
import type { ArmInfo, RunResult } from '../results/types.js';
import { describeStoredBaseline } from './comparison-text.js';
import { allWarnings } from './markdown-details.js';
import { armName, clientsText, type CommitInfo, type ReportContext } from './markdown-context.js';
import { escapeMarkdown, markdownLink, shortSha } from './markdown-escape.js';
import { VERDICT_DISPLAY } from './verdict-display.js';

export function headline(ctx: ReportContext): string {
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
function describeCell(ctx: ReportContext, { arm, cell }: ArmCell): string {
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
function commits(ctx: ReportContext): string {
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

export function designLines(ctx: ReportContext): string[] {
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
