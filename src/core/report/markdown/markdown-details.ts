/**
 * The collapsed details under the tables: environment, builds, settings, rounds and order, raw samples,
 * the steady per-transaction costs, the instruction counts, the CPU-profile and wait-event "why" sections and the warnings, each a <details>
 * block; `trims` (markdown-size.ts) shortens or omits parts of them.
 */
import { escapeMarkdown } from '../markdown-escape.js';
import { omitted, type ReportContext } from './markdown-context.js';
import { rawSamples, roundsAndOrder } from './markdown-runs.js';
import { builds, environment, settings } from './markdown-setup.js';
import type { TrimId } from './markdown-size.js';
import { waitEventSections } from '../evidence/wait-event-section.js';
import { steadyMetricsSection } from '../evidence/steady-metrics-section.js';
import { instructionSection } from '../evidence/instruction-section.js';
import { explanationSection } from '../evidence/explain-section.js';
import { planSection } from '../evidence/plan-section.js';

export function detailBlocks(ctx: ReportContext, trims: ReadonlySet<TrimId>): string[] {
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
  const steady = steadyMetricsSection(ctx.result);
  if (steady) blocks.push(details(steady.summary, steady.body));
  const instructions = instructionSection(ctx.result, ctx.c);
  if (instructions) blocks.push(details(instructions.summary, instructions.body));
  const explanation = explanationSection(ctx.result);
  if (explanation) blocks.push(details(explanation.summary, explanation.body));
  const plans = planSection(ctx.result.plans);
  if (plans) blocks.push(details(plans.summary, plans.body));
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

function details(summary: string, body: string[]): string {
  return [`<details><summary>${summary}</summary>`, '', ...body, '', '</details>'].join('\n');
}

/** The run's warnings, then the comparison's that are not already among them (compareRun repeats them). */
export function allWarnings(ctx: ReportContext): string[] {
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
