/**
 * Stored runs for people: the listing table of `pgperf store list` and the summary of `pgperf store show`.
 * Pure renderers over StoredRun / RunResult values.
 */
import { environmentFingerprint } from '../machine/fingerprint.js';
import type { RunResult } from '../core/results/result-types.js';
import { costText } from '../core/results/answer-cost.js';
import type { StoredRun } from './store.js';

/** Characters of a fingerprint id shown in tables (the full id is in --json and `show`). */
export const SHORT_FINGERPRINT = 8;
const SHORT_SHA = 10;

/** One line per run, newest first as given: id, start (UTC), status, commits, workloads, cells, fingerprint. */
export function renderRunTable(runs: StoredRun[]): string {
  if (runs.length === 0) return 'no stored runs match\n';
  const header = ['ID', 'STARTED (UTC)', 'STATUS', 'COMMITS', 'WORKLOADS', 'CELLS', 'FINGERPRINT'];
  const rows = runs.map((r) => [
    r.id,
    utcMinute(r.startedAt),
    r.status,
    formatCommits(r.commits),
    r.workloads.join(', '),
    String(r.cells),
    r.fingerprint.slice(0, SHORT_FINGERPRINT),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** "base master@1a2b3c4d5e, head pr-7@..." (ref and/or short sha per arm; the label alone when unknown). */
export function formatCommits(commits: StoredRun['commits']): string {
  return commits
    .map((c) => {
      const sha = c.sha?.slice(0, SHORT_SHA);
      const what = c.ref && sha ? `${c.ref}@${sha}` : (c.ref ?? sha);
      return what ? `${c.arm} ${what}` : c.arm;
    })
    .join(', ');
}

/** The summary of one stored run: what ran where, and the fingerprint's facts. */
export function renderRunDetails(doc: RunResult): string {
  const fp = doc.fingerprint ?? environmentFingerprint(doc);
  const ok = doc.samples.filter((s) => s.status === 'ok').length;
  const lines = [
    `run ${doc.runId ?? '(no id)'}: ${doc.status}${doc.stopReason ? ` (${doc.stopReason})` : ''}`,
    `  started ${doc.startedAt}, updated ${doc.updatedAt}, pgperf ${doc.pgperfVersion}`,
  ];
  if (doc.source?.repository) lines.push(`  repository ${doc.source.repository}`);
  lines.push('  arms:');
  for (const arm of doc.arms) {
    const b: { ref?: unknown; sha?: unknown } = arm.build ?? {};
    const commit = [b.ref, typeof b.sha === 'string' ? b.sha.slice(0, SHORT_SHA) : undefined]
      .filter((x) => typeof x === 'string')
      .join('@');
    lines.push(`    ${arm.label}: ${arm.serverVersion}${commit ? ` (${commit})` : ''}`);
  }
  const byWorkload = new Map<string, number[]>();
  for (const c of doc.plan.cells)
    byWorkload.set(c.workload, [...(byWorkload.get(c.workload) ?? []), c.clients]);
  lines.push('  workloads:');
  for (const [w, clients] of byWorkload) lines.push(`    ${w} at ${clients.join(', ')} clients`);
  lines.push(
    `  ${doc.plan.cells.length} cells, ${doc.plan.rounds} rounds, ${doc.samples.length} samples (${ok} ok, ${doc.samples.length - ok} failed)`,
  );
  // What the answer cost, rounds or none (a run decided without timed rounds is kept as well).
  if (doc.cost) lines.push(`  ${costText(doc.cost)}`);
  lines.push(`  fingerprint ${fp.id}:`);
  for (const [k, v] of Object.entries(fp.facts).sort(([a], [b]) => a.localeCompare(b)))
    lines.push(`    ${k}: ${v}`);
  return `${lines.join('\n')}\n`;
}

function utcMinute(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 16).replace('T', ' ');
}
