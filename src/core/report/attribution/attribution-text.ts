/**
 * Plain-text rendering of an attribution (docs/attribute.md): per workload, the end-to-end change first,
 * then the commits named (short sha, change per transaction, share of the total, subject), how they add
 * up (their sum, the remainder and what it is made of), under each commit its largest profile movers, a text waterfall from `from` to `to` through each
 * commit, and what the search cannot see; then the budget and the cost. Subjects are plain text
 * (plainText): no control characters reach the terminal.
 */
import type { AttributionReport, CulpritChange, WorkloadSums } from '../../attribution/attribution-report.js';
import { moverText } from '../evidence/instruction-section.js';
import { waterfallOf, type WaterfallBar } from '../../attribution/attribution-waterfall.js';
import { short } from '../../util/commit-id.js';
import { formatDuration } from '../../util/duration.js';
import { formatPct } from '../../compare/format.js';
import { plainText } from '../../util/plain-text.js';
import { groupedNumber } from '../table-cells.js';

/** Columns of the waterfall's bars. */
const WATERFALL_WIDTH = 40;
/** Characters of a subject in the tables. */
const SUBJECT_CHARS = 60;

/** Why a range is left unresolved, in words. */
export const UNRESOLVED_WHY: Record<AttributionReport['unresolved'][number]['why'], string> = {
  budget: 'the budget of counted commits ran out',
  unmeasured: 'no commit inside could be built or counted',
  unsteady: 'the counts are not steady enough to tell',
};

export function renderAttributionText(r: AttributionReport): string {
  const lines = [
    `attribute: ${short(r.from.sha)} .. ${short(r.to.sha)} in ${plainText(r.repo)}, ${r.commits} commit${r.commits === 1 ? '' : 's'} on the first-parent line (counted with ${r.counter})`,
  ];
  for (const w of r.workloads) lines.push('', ...workloadLines(r, w));
  if (r.unmeasured.length > 0) {
    lines.push('', `not measured (${r.unmeasured.length}):`);
    for (const u of r.unmeasured) lines.push(`  ${short(u.sha)}  ${plainText(u.reason, 200)}`);
  }
  lines.push('', costLine(r), `attribution: ${plainText(r.outDir)}`);
  return `${lines.join('\n')}\n`;
}

const perTx = (v: number) => groupedNumber(v, 0);
const signed = (v: number) => `${v > 0 ? '+' : v < 0 ? '-' : ''}${groupedNumber(Math.abs(v), 0)}`;
const share = (pct: number | null) => (pct === null ? '-' : `${Math.round(pct)} %`);

function workloadLines(r: AttributionReport, w: WorkloadSums): string[] {
  const lines = [
    `${plainText(w.workload)}: ${perTx(w.fromPerTx)} -> ${perTx(w.toPerTx)} instructions/tx (${signed(w.changePerTx)}, ${formatPct(w.changePct)}); floor ±${w.floorPct}%`,
  ];
  const culprits = r.culprits.flatMap((c) =>
    c.changes.filter((x) => x.workload === w.workload).map((x) => ({ ...c, change: x })),
  );
  if (!w.endsDiffer) {
    lines.push(
      `  the ends agree within the floor${culprits.length > 0 ? '; the commits below move it in ways that cancel' : ''}: shares of the total are not shown`,
    );
  }
  if (culprits.length === 0) {
    lines.push('  no commit moved it by the floor or more');
  } else {
    const rows = culprits.map((c) => [
      short(c.sha),
      `${signed(c.change.changePerTx)} (${formatPct(c.change.changePct)})`,
      share(c.change.sharePct),
      plainText(c.subject, SUBJECT_CHARS),
    ]);
    const [head, ...body] = table([['commit', 'change/tx', 'share', 'subject'], ...rows]);
    lines.push(head!);
    // Under each commit, the functions that moved most from its parent to it.
    for (const [i, row] of body.entries()) lines.push(row, ...moverLines(culprits[i]!.change));
  }
  const total = w.changePerTx;
  const shareOf = (v: number) => (w.endsDiffer && total !== 0 ? ` (${share((100 * v) / total)})` : '');
  lines.push(
    `  sum of the ${culprits.length} commit${culprits.length === 1 ? '' : 's'}: ${signed(w.culpritSumPerTx)}${shareOf(w.culpritSumPerTx)} of ${signed(total)}; remainder ${signed(w.remainderPerTx)}${shareOf(w.remainderPerTx)}: ${remainderParts(r, w)}`,
  );
  if (culprits.length > 0) lines.push(...waterfall(waterfallOf(r, w.workload)));
  const unresolved = r.unresolved.filter((u) => u.workload === w.workload);
  for (const u of unresolved) {
    lines.push(
      `  unresolved: ${short(u.from)}..${short(u.to)} (${u.commits} commit${u.commits === 1 ? '' : 's'}, ${signed(u.changePerTx)}): ${UNRESOLVED_WHY[u.why]}`,
    );
  }
  const unseen = r.unseen.filter((u) => u.workload === w.workload);
  if (unseen.length > 0) {
    const commits = unseen.reduce((s, u) => s + u.commits, 0);
    const listed = unseen
      .slice(0, 5)
      .map((u) => `${short(u.from)}..${short(u.to)}`)
      .join(', ');
    lines.push(
      `  not seen: changes that cancel exactly inside ${unseen.length} range${unseen.length === 1 ? '' : 's'} whose ends agree (${commits} commits: ${listed}${unseen.length > 5 ? ', ...' : ''})`,
    );
  }
  return lines;
}

/** A culprit's largest movers (or why there are none), indented under its row. */
function moverLines(change: CulpritChange): string[] {
  if (change.movers?.top.length === 0) {
    return [`      top movers: no function's self instructions moved (${plainText(change.movers.file)})`];
  }
  if (change.movers) {
    return [
      `      top movers (self instructions/tx, parent -> commit; all in ${plainText(change.movers.file)}):`,
      ...change.movers.top.map((m) => `        ${plainText(moverText(m), 160)}`),
    ];
  }
  return change.moversMissing ? [`      no movers: ${plainText(change.moversMissing, 200)}`] : [];
}

/** What the remainder is made of: quiet ranges below the floor, unresolved ranges. */
function remainderParts(r: AttributionReport, w: WorkloadSums): string {
  const parts = [
    `${signed(w.belowFloorPerTx)} below the floor in ${w.belowFloorRanges} range${w.belowFloorRanges === 1 ? '' : 's'}`,
  ];
  const n = r.unresolved.filter((u) => u.workload === w.workload).length;
  if (n > 0) parts.push(`${signed(w.unresolvedPerTx)} in ${n} unresolved range${n === 1 ? '' : 's'}`);
  return parts.join(', ');
}

/**
 * The waterfall (attribution-waterfall.ts) as text: one row per bar, drawn from the running total (`+`
 * more instructions, `-` fewer; `|` marks a level). The axis spans the lowest to the highest running
 * total, so changes of a few per cent fill it.
 */
export function waterfall(bars: readonly WaterfallBar[]): string[] {
  const rows = bars.map((b) => ({
    label: b.kind === 'commit' ? short(b.label) : b.label,
    from: b.start,
    to: b.end,
    text: b.kind === 'from' || b.kind === 'to' ? perTx(b.value) : signed(b.value),
  }));
  const all = rows.flatMap((r) => [r.from, r.to]);
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const x = (v: number) => (hi === lo ? 0 : Math.round(((v - lo) / (hi - lo)) * WATERFALL_WIDTH));
  const labelWidth = Math.max(...rows.map((r) => r.label.length));
  const textWidth = Math.max(...rows.map((r) => r.text.length));
  return rows.map((r) => {
    const a = x(Math.min(r.from, r.to));
    const b = x(Math.max(r.from, r.to));
    const bar =
      r.from === r.to
        ? `${' '.repeat(a)}|`
        : `${' '.repeat(a)}${(r.to > r.from ? '+' : '-').repeat(Math.max(1, b - a))}`;
    return `  ${r.label.padEnd(labelWidth)}  ${r.text.padStart(textWidth)}  ${bar}`.trimEnd();
  });
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}`.trimEnd(),
  );
}

function costLine(r: AttributionReport): string {
  const b = r.budget;
  const inferred = r.points.filter((p) => !p.counted).length;
  return (
    `counted ${b.counted} of at most ${b.maxCommits} commits` +
    (r.cost.reused > 0 ? ` (${r.cost.reused} by an earlier run: the journal)` : '') +
    (inferred > 0 ? `, ${inferred} more took a counted commit's counts (the same compiled code)` : '') +
    (b.exhausted ? ' (the budget ran out: --max-commits)' : '') +
    `; ${r.cost.builds} build${r.cost.builds === 1 ? '' : 's'} (${r.cost.cacheHits} from the cache, ${formatDuration(r.cost.buildS)}), counting ${formatDuration(r.cost.countS)}, in all ${formatDuration(r.cost.totalS)}`
  );
}
