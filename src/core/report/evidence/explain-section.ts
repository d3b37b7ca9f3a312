/**
 * "Why it changed: CPU profile" in the comment's details: for each head arm and workload whose throughput
 * changed, the five largest movers of the differential profile the explain phase took
 * (src/run/counted/explain-phase.ts), the cells that asked for it and where the full profile is. Data
 * first (explanationReport), then markdown; nothing when the run has no explanation.
 */
import type { ProfileMover } from '../../results/instructions.js';
import type { RunResult } from '../../results/result-types.js';
import { codeText, escapeMarkdown } from '../markdown-escape.js';
import { moversTable, SHOWN_MOVERS } from './instruction-section.js';

export interface ExplanationRow {
  head: string;
  workload: string;
  cells: string[];
  movers: ProfileMover[];
  file: string;
}

export interface ExplanationReport {
  wallS: number;
  rows: ExplanationRow[];
  /** Workloads without a profile, and why. */
  missing: string[];
}

export function explanationReport(result: RunResult): ExplanationReport | undefined {
  const record = result.explanation;
  if (!record) return undefined;
  const rows: ExplanationRow[] = [];
  for (const t of record.targets) {
    const profile = record.profiles.find((p) => p.workload === t.workload && p.head === t.head);
    if (profile) {
      rows.push({ ...t, movers: profile.movers.slice(0, SHOWN_MOVERS), file: profile.file });
    }
  }
  return {
    wallS: record.wallS,
    rows,
    missing: record.failures.map((f) => `${f.workload}: no profile: ${f.reason}`),
  };
}

export function explanationSection(result: RunResult): { summary: string; body: string[] } | undefined {
  const report = explanationReport(result);
  if (!report) return undefined;
  const body = [
    'Self instructions per transaction by function, base and head, counted under valgrind cachegrind at 1 client ' +
      `after the rounds (${report.wallS.toFixed(0)} s). This is CPU work per transaction: a change that shows ` +
      'only at high client counts (lock contention, I/O) can have no mover here.',
  ];
  for (const r of report.rows) {
    body.push(
      '',
      `**${escapeMarkdown(r.workload, 80)}, ${escapeMarkdown(r.head, 40)} vs base** (changed: ${r.cells.map((c) => codeText(c, 80)).join(', ')}; full profile: \`${escapeMarkdown(r.file, 200)}\`)`,
      '',
      ...(r.movers.length > 0 ? moversTable(r.movers) : ['No function moved.']),
    );
  }
  if (report.missing.length > 0) body.push('', ...report.missing.map((m) => `- ${escapeMarkdown(m, 300)}`));
  return { summary: 'Why it changed: CPU profile', body };
}
