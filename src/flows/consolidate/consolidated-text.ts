/**
 * A judged consolidation as `pgperf consolidate` prints it: the terminal text (verdict first, over every
 * machine class, then one section per class) and the JSON (the decision and each class's). The markdown is
 * the Action's comment (core/report/markdown/consolidated-markdown.ts).
 */
import { decisionLine, renderComparisonText } from '../../core/report/terminal/comparison-text.js';
import { describeMachineClass, type JudgedConsolidation } from './consolidated-decision.js';

/** The terminal text, ending in a newline. */
export function renderConsolidationText(judged: JudgedConsolidation): string {
  const n = judged.classes.length;
  const out: string[] = [
    `${decisionLine(judged.decision)} (${n} machine class${n === 1 ? '' : 'es'}, plan ${judged.planId}, ${judged.count} shards)`,
    '',
  ];
  for (const c of judged.classes) {
    const shards = `shards ${c.present.join(', ')} of ${judged.count}${c.missing.length ? `; MISSING ${c.missing.join(', ')}` : ''}`;
    out.push(`== machine class ${c.fingerprint} (${describeMachineClass(c)}; ${shards})`, '');
    out.push(renderComparisonText(c.comparison, c.decision));
  }
  return `${out.join('\n')}\n`;
}

/** The JSON document, ending in a newline. */
export function renderConsolidationJson(judged: JudgedConsolidation): string {
  const classes = judged.classes.map((c) => ({
    fingerprint: c.fingerprint,
    decision: c.decision,
    comparison: c.comparison,
  }));
  return `${JSON.stringify({ decision: judged.decision, classes }, null, 2)}\n`;
}
