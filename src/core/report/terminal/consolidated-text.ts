/**
 * A judged consolidation as `pgperf consolidate` prints it: the terminal text (verdict first, over every
 * machine class, then one section per class) and the JSON (the decision and each class's). The markdown is
 * the Action's comment (../markdown/consolidated-markdown.ts).
 */
import type { RunComparison } from '../../compare/comparison-types.js';
import type { Decision } from '../../compare/decision/decision.js';
import { decisionLine, renderComparisonText } from './comparison-text.js';

/** A judged consolidation as the terminal needs it (src/flows/consolidate's JudgedConsolidation is one). */
export interface ConsolidationView {
  planId: string;
  count: number;
  /** Over every class. */
  decision: Decision;
  classes: ReadonlyArray<{
    fingerprint: string;
    facts: Record<string, string>;
    present: number[];
    missing: number[];
    comparison: RunComparison;
    decision: Decision;
  }>;
}

/** A machine class in a few words: "Intel Xeon ..., 64 CPUs". */
export function describeMachineClass(c: { facts: Record<string, string> }): string {
  return `${c.facts.cpuModel ?? 'unknown CPU'}, ${c.facts.cpuCount ?? '?'} CPUs`;
}

/** The terminal text, ending in a newline. */
export function renderConsolidationText(judged: ConsolidationView): string {
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
export function renderConsolidationJson(judged: ConsolidationView): string {
  const classes = judged.classes.map((c) => ({
    fingerprint: c.fingerprint,
    decision: c.decision,
    comparison: c.comparison,
  }));
  return `${JSON.stringify({ decision: judged.decision, classes }, null, 2)}\n`;
}
