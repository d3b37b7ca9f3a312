/**
 * The top of the markdown report: the decision's headline (icon, the net effect in words, the cell that
 * decides it with its delta and CI), what was measured (commits when built, installs when given), the
 * stored baseline; then the design line (metrics, α and Holm family, threshold, fail-on, rounds,
 * sequential look, links).
 */
import { thresholdText } from '../terminal/comparison-text.js';
import { compiledCodeLines } from '../evidence/compiled-code-lines.js';
import { costLines } from '../evidence/cost-line.js';
import { gateRecordLines } from '../evidence/gate-record-line.js';
import type { Decision } from '../../compare/decision/decision.js';
import { formatP } from '../../compare/format.js';
import { METRICS } from '../../results/metrics.js';
import type { ArmInfo, CommitfestEntry, RunResult } from '../../results/result-types.js';
import { describeCommitfest, describeStoredBaseline } from '../terminal/comparison-text.js';
import { allWarnings } from './markdown-details.js';
import { armName, type CommitInfo, type ReportContext } from './markdown-context.js';
import { escapeMarkdown, markdownLink, shortSha } from '../markdown-escape.js';
import { VERDICT_DISPLAY } from '../verdict-display.js';

export function headline(ctx: ReportContext): string {
  const { c, result } = ctx;
  const d = ctx.input.decision;
  const parts = [
    `${decisionIcon(d)} **${escapeMarkdown(d.headline.lead)}**${d.headline.detail ? `: ${escapeMarkdown(d.headline.detail)}` : ''}`,
  ];
  if (c.comparisons.length > 0) parts.push(commits(ctx));
  if (result.baseline) parts.push(`📦 ${escapeMarkdown(describeStoredBaseline(result.baseline))}`);
  return parts.join(' · ');
}

/** The icon of the decision: the gate's outcome first, then what passed. */
export function decisionIcon(d: Decision): string {
  if (d.outcome === 'failed') return '❌';
  if (d.outcome === 'incomplete') return '⚠️';
  if (d.outcome === 'pending') return '❔';
  if (d.counts.regressions + d.counts.likelyRegressions > 0) return '⚠️';
  return VERDICT_DISPLAY[d.verdict].icon;
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
  const entry = commitfestOf(result);
  return `${head}${entry ? `, ${escapeMarkdown(describeCommitfest(entry))},` : ''}${more} vs ${base}`;
}

/** The commitfest entry head was built from (`source.commitfest`), read defensively. */
function commitfestOf(result: RunResult): CommitfestEntry | undefined {
  const entry = (result.source as { commitfest?: unknown } | undefined)?.commitfest;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { id, branch } = entry as { id?: unknown; branch?: unknown };
  return typeof id === 'number' && typeof branch === 'string' ? { id, branch } : undefined;
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

/**
 * What was measured for one role: the commit when pgperf built the arm, else the install (its bin dir and
 * server version), never a sha that the install need not be.
 */
function describeCommit(
  role: 'base' | 'head',
  info: CommitInfo | undefined,
  arm: ArmInfo | undefined,
): string {
  const label = info?.label ?? arm?.label ?? role;
  if (arm && !arm.build && typeof arm.binDir === 'string') {
    const version = /PostgreSQL\)?\s+(\S+)/.exec(arm.serverVersion ?? '')?.[1];
    return `${armName(role, label)} ${escapeMarkdown(arm.binDir, 120)}${version ? ` (PostgreSQL ${escapeMarkdown(version, 40)})` : ''}`;
  }
  const buildSha = arm?.build?.sha;
  const sha = info?.sha ?? (typeof buildSha === 'string' ? buildSha : undefined);
  const words = [armName(role, label)];
  if (sha) words.push(shortSha(sha));
  const extra = [info?.ref, info?.chosenBy].filter((s): s is string => !!s && s.trim() !== '');
  if (extra.length > 0) words.push(`(${extra.map((s) => escapeMarkdown(s, 120)).join(', ')})`);
  return words.join(' ');
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
    escapeMarkdown(thresholdText(c), 400),
    `fail-on ${input.decision.failOn}`,
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
  // What the columns mean is said under each arm's tables (table-model.ts deltaLegend), test by test.
  return [
    parts.join(' · '),
    ...[...compiledCodeLines(c), ...costLines(c), ...gateRecordLines(c)].map(
      (line) => `\n${escapeMarkdown(line, 2000)}`,
    ),
  ];
}
