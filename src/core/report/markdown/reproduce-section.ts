/**
 * The comment's "Reproduce" section: for the workloads with a decided change (a regression, a likely one,
 * or an improvement), the commands that re-measure those cells locally (reproduce.ts), collapsed, in a
 * code block (codeBlock: shown as it is, nothing inside can close it).
 */
import type { DecidedCell, Decision } from '../../compare/decision/decision.js';
import type { RunResult } from '../../results/result-types.js';
import { codeBlock, escapeMarkdown } from '../markdown-escape.js';
import { reproductions, type ReproduceTarget } from '../reproduce.js';

/** Where the block runs: the quick start of a pgperf clone puts `pgperf` on the PATH (scripts/link-cli.sh). */
const WHERE = 'In a clone of pgperf, after `npm run quickstart` (it puts `pgperf` on the PATH):';

/** At most this many workloads get a block: the comment stays readable; the results file has them all. */
export const MAX_WORKLOADS = 3;

export function reproduceTargets(decision: Decision): ReproduceTarget[] {
  return cellTargets(
    decision.cells.filter(
      (c) => c.verdict === 'regression' || c.verdict === 'improvement' || c.likelyRegression,
    ),
  );
}

/** The cells' workloads, each with the cells' client counts in order (the plain-text mail's own choice of cells). */
export function cellTargets(cells: readonly DecidedCell[]): ReproduceTarget[] {
  const byWorkload = new Map<string, number[]>();
  for (const c of cells) {
    if (c.part !== undefined) continue; // a consolidated comparison spans machines: no one command
    const clients = byWorkload.get(c.workload) ?? [];
    if (!clients.includes(c.clients)) clients.push(c.clients);
    byWorkload.set(c.workload, clients);
  }
  return [...byWorkload].map(([workload, clients]) => ({ workload, clients: clients.sort((a, b) => a - b) }));
}

export function reproduceSection(result: RunResult, decision: Decision): string[] {
  const found = reproductions(result, reproduceTargets(decision).slice(0, MAX_WORKLOADS));
  if (found.length === 0) return [];
  return found.map((r) => {
    const copy =
      r.scriptFiles.length > 0
        ? [
            `Copy ${r.scriptFiles.map((f) => escapeMarkdown(f)).join(', ')} from the workload's directory beside ${escapeMarkdown(r.file)} first.`,
            '',
          ]
        : [];
    return [
      `<details><summary>Reproduce ${escapeMarkdown(r.workload)} at ${r.clients.join(', ')} client(s) with the CLI</summary>`,
      '',
      WHERE,
      '',
      ...copy,
      codeBlock(r.script, 'sh'),
      '',
      '</details>',
    ].join('\n');
  });
}
