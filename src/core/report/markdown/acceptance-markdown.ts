/**
 * The accepted trade-offs of a decision (`/pgperf accept`), as a block under the comment's headline: each
 * accepted cell with its numbers (which stay in the tables too), who accepted it and why, and the
 * acceptances that no longer apply (a new head commit, or a regression grown beyond the accepted one).
 */
import type { DecidedCell, Decision } from '../../compare/decision/decision.js';
import { formatPct } from '../../compare/format.js';
import { METRICS } from '../../results/metrics.js';
import { codeText, escapeMarkdown } from '../markdown-escape.js';

/** The block's lines ('' when no cell names an acceptance). */
export function renderAcceptances(decision: Pick<Decision, 'cells'>): string {
  const named = decision.cells.filter((c) => c.accepted !== undefined);
  if (named.length === 0) return '';
  return [
    '',
    '**Accepted trade-offs** (`/pgperf accept`):',
    '',
    ...named.map((c) => `- ${acceptanceLine(c)}`),
    '',
  ].join('\n');
}

function acceptanceLine(c: DecidedCell): string {
  const a = c.accepted!;
  const delta = c.deltaPct === null ? 'no data' : formatPct(c.deltaPct);
  const cell = `${codeText(c.id)} ${METRICS[c.metric].label} ${delta}`;
  const who = `accepted by @${escapeMarkdown(a.by)}: ${escapeMarkdown(a.reason)}`;
  const when = `for ${a.sha.slice(0, 12)} at ${formatPct(a.acceptedDeltaPct)}`;
  switch (a.state) {
    case 'valid':
      return `✅ ${cell}: ${who} (${when})`;
    case 'new-head':
      return `⚠️ ${cell}: **no longer accepted**, a new head commit was measured (${who}, ${when})`;
    case 'worse':
      return `⚠️ ${cell}: **no longer accepted**, the regression grew by more than the ${c.thresholdPct}% threshold beyond the accepted one (${who}, ${when})`;
  }
}
