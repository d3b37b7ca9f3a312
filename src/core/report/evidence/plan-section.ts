/**
 * The plans of the statements (results.json `plans`, docs/plans.md) in the reports: which statements'
 * plans differ between base and a head ("plan changed", with both plans), and the statements whose cost per
 * call moved most (pg_stat_statements: time and shared blocks per call, base → head). Data first
 * (planReport), then the plain text the terminal and the mail lay out (planText, planTextLines) and the
 * comment's collapsed section (planSection); nothing when the run took no plans.
 */
import {
  blocksPerCall,
  callsPerTransaction,
  timePerCall,
  type PlansRecord,
  type StatementPlan,
  type StatementStats,
} from '../../results/plans.js';
import { formatBytes } from '../../util/bytes.js';
import { escapeHtml } from '../html-escape.js';
import { codeText, escapeMarkdown } from '../markdown-escape.js';

/** Statements listed as the largest movers of cost per call. */
export const SHOWN_STATEMENT_MOVERS = 3;
/** Changed plans shown in full in the comment (the rest are named; results.json keeps every plan). */
const SHOWN_CHANGES = 10;
/** Characters of one plan shown in the comment. */
const PLAN_CHARS = 4000;
/** Characters of a statement in a line or a heading. */
const STATEMENT_CHARS = 200;

export interface PlanChange {
  workload: string;
  base: string;
  head: string;
  statement: string;
  basePlan: string;
  headPlan: string;
  /** The first line where the plans differ, in base and in head (plan nodes, trimmed). */
  firstDifference: { base: string; head: string };
}

export interface StatementCost {
  callsPerTx: number | null;
  msPerCall: number | null;
  blocksPerCall: number | null;
}

export interface StatementMover {
  workload: string;
  head: string;
  statement: string;
  base: StatementCost;
  headCost: StatementCost;
  /** Change of time per call and of shared blocks per call, in percent (null without a base figure). */
  timeDeltaPct: number | null;
  blocksDeltaPct: number | null;
}

export interface PlanReport {
  /** Statements with a plan (each workload's once). */
  statements: number;
  changed: PlanChange[];
  /** The largest movers of cost per call, largest first (empty without pg_stat_statements). */
  movers: StatementMover[];
  /** Transactions of the counted runs the costs come from, when there are costs. */
  transactions?: number;
  wallS: number;
  notes: string[];
}

export function planReport(record: PlansRecord): PlanReport {
  const [base, ...heads] = record.arms;
  const planned = record.statements.filter((s) => s.explained !== undefined);
  const changed: PlanChange[] = [];
  const movers: StatementMover[] = [];
  const notes = [...record.notes];
  const find = <T extends { workload: string; arm: string; statement: string }>(
    list: readonly T[],
    workload: string,
    arm: string,
    statement: string,
  ) => list.find((x) => x.workload === workload && x.arm === arm && x.statement === statement);
  for (const head of heads) {
    for (const { workload, statement } of planned) {
      const b = find(record.plans, workload, base!, statement);
      const h = find(record.plans, workload, head, statement);
      if (b?.plan !== undefined && h?.plan !== undefined && b.plan !== h.plan) {
        changed.push({
          workload,
          base: base!,
          head,
          statement,
          basePlan: b.plan,
          headPlan: h.plan,
          firstDifference: firstDifference(b.plan, h.plan),
        });
      }
      for (const [arm, p] of [
        [base!, b],
        [head, h],
      ] as const) {
        if (p?.error !== undefined) notes.push(`${workload}: no plan on ${arm} for ${statement}: ${p.error}`);
      }
      const memory = plannerMemoryMove(b?.plannerMemory, h?.plannerMemory);
      if (memory) {
        notes.push(
          `planner memory moved: ${short(statement)} (${workload}${heads.length > 1 ? `, ${head}` : ''}: ${memory})`,
        );
      }
    }
    for (const { workload, statement } of record.statements) {
      const b = find(record.stats, workload, base!, statement);
      const h = find(record.stats, workload, head, statement);
      if (!b || !h) continue;
      const baseCost = costOf(b);
      const headCost = costOf(h);
      movers.push({
        workload,
        head,
        statement,
        base: baseCost,
        headCost,
        timeDeltaPct: deltaPct(baseCost.msPerCall, headCost.msPerCall),
        blocksDeltaPct: deltaPct(baseCost.blocksPerCall, headCost.blocksPerCall),
      });
    }
  }
  // The same note for several heads once.
  const uniqueNotes = [...new Set(notes)];
  for (const f of record.failures) {
    uniqueNotes.push(`${f.workload}${f.arm ? ` on ${f.arm}` : ''}: not taken: ${f.reason}`);
  }
  // Blocks per call first: they repeat from run to run, while one short run's time per call is noisy.
  const blocksMoved = (m: StatementMover) => Math.round(Math.abs(m.blocksDeltaPct ?? 0) * 10);
  const timeMoved = (m: StatementMover) => Math.abs(m.timeDeltaPct ?? 0);
  movers.sort((a, b) => blocksMoved(b) - blocksMoved(a) || timeMoved(b) - timeMoved(a));
  const transactions = record.stats[0]?.transactions;
  return {
    statements: planned.length,
    changed,
    movers: movers.slice(0, SHOWN_STATEMENT_MOVERS),
    ...(transactions !== undefined ? { transactions } : {}),
    wallS: record.wallS,
    notes: uniqueNotes,
  };
}

/**
 * Planning the same statement on the same catalog allocates the same memory from run to run, so a change of
 * at least PLANNER_MEMORY_FLOOR (bytes and percent of base) is the head's: "16.0 kB -> 48.0 kB allocated
 * (+200%)". Reported with the plans, not gated.
 */
const PLANNER_MEMORY_FLOOR = { bytes: 8192, pct: 25 };

function plannerMemoryMove(
  base: StatementPlan['plannerMemory'],
  head: StatementPlan['plannerMemory'],
): string | undefined {
  if (!base || !head || base.allocatedBytes <= 0) return undefined;
  const delta = head.allocatedBytes - base.allocatedBytes;
  const pct = (100 * delta) / base.allocatedBytes;
  if (Math.abs(delta) < PLANNER_MEMORY_FLOOR.bytes || Math.abs(pct) < PLANNER_MEMORY_FLOOR.pct)
    return undefined;
  return `${formatBytes(base.allocatedBytes)} -> ${formatBytes(head.allocatedBytes)} allocated (${pct >= 0 ? '+' : ''}${pct.toFixed(0)}%)`;
}

function costOf(s: StatementStats): StatementCost {
  return { callsPerTx: callsPerTransaction(s), msPerCall: timePerCall(s), blocksPerCall: blocksPerCall(s) };
}

function deltaPct(base: number | null, head: number | null): number | null {
  if (base === null || head === null || base === 0) return null;
  return 100 * (head / base - 1);
}

/** The first line where two plans differ (a line missing from one is shown as "(none)"). */
function firstDifference(base: string, head: string): { base: string; head: string } {
  const b = base.split('\n');
  const h = head.split('\n');
  for (let i = 0; i < Math.max(b.length, h.length); i++) {
    if (b[i] !== h[i]) return { base: node(b[i]), head: node(h[i]) };
  }
  return { base: '(none)', head: '(none)' };
}

function node(line: string | undefined): string {
  return line === undefined ? '(none)' : line.trim().replace(/^->\s+/, '');
}

/**
 * The plans' findings as plain text, which the terminal and the mail each lay out their own way: per
 * changed statement "plan changed: <statement> (...)", or one line "plans: N statements, none changed"; the
 * largest movers of cost per call under their heading; what could not be taken.
 */
export interface PlanText {
  changes: string[];
  /** Per statement its cost per call: time, shared blocks ("8.7 -> 9,793.0 µs (+112463.2%)"). */
  movers?: { heading: string; statements: Array<{ statement: string; costs: string[] }> };
  notes: string[];
}

/** The plans' findings as plain text; undefined when the run took no plans. */
export function planText(record: PlansRecord | undefined): PlanText | undefined {
  if (!record) return undefined;
  const report = planReport(record);
  const multiHead = record.arms.length > 2;
  const changes =
    report.changed.length === 0
      ? [`plans: ${report.statements} statement${report.statements === 1 ? '' : 's'}, none changed`]
      : report.changed.map(
          (c) =>
            `plan changed: ${short(c.statement)} (${c.workload}${multiHead ? `, ${c.head} vs ${c.base}` : ''}: ${c.firstDifference.base} -> ${c.firstDifference.head})`,
        );
  const movers =
    report.movers.length === 0
      ? undefined
      : {
          heading: `cost per call, base -> head (pg_stat_statements, ${report.transactions ?? '?'} transactions at 1 client):`,
          statements: report.movers.map((m) => ({
            statement: `${short(m.statement)}${multiHead ? ` (${m.head})` : ''}`,
            costs: costTexts(m, '->'),
          })),
        };
  return { changes, ...(movers ? { movers } : {}), notes: report.notes };
}

/** The terminal's lines: the changes, the movers and the notes under them. */
export function planTextLines(record: PlansRecord | undefined): string[] {
  const text = planText(record);
  if (!text) return [];
  return [
    '',
    ...text.changes,
    ...(text.movers
      ? [
          `  ${text.movers.heading}`,
          ...text.movers.statements.map((m) => `    ${m.statement}: ${m.costs.join(', ')}`),
        ]
      : []),
    ...text.notes.map((n) => `  ${n}`),
  ];
}

/** "8.7 -> 9,793.0 µs (+112463.2%)", "3.0 -> 1640.0 blocks (+54566.7%)": one mover's cost per call. */
function costTexts(m: StatementMover, arrow: string): string[] {
  return [
    `${us(m.base.msPerCall)} ${arrow} ${us(m.headCost.msPerCall)} µs${pct(m.timeDeltaPct)}`,
    `${blocks(m.base.blocksPerCall)} ${arrow} ${blocks(m.headCost.blocksPerCall)} blocks${pct(m.blocksDeltaPct)}`,
  ];
}

/** The comment's collapsed section: the changed plans in full, the largest movers, the notes. */
export function planSection(
  record: PlansRecord | undefined,
): { summary: string; body: string[] } | undefined {
  if (!record) return undefined;
  const report = planReport(record);
  const multiHead = record.arms.length > 2;
  const summary =
    report.changed.length === 0
      ? `Query plans: ${report.statements} statement${report.statements === 1 ? '' : 's'}, none changed`
      : `Query plans: plan changed in ${report.changed.length} of ${report.statements} statement${report.statements === 1 ? '' : 's'}`;
  const body = [
    `\`EXPLAIN (COSTS OFF)\` of every statement the workloads run (pgbench variables set to representative values), per arm on a server of its own with the workload's data set; the phase took ${report.wallS.toFixed(0)} s. A changed plan explains a throughput change without noise.`,
  ];
  for (const c of report.changed.slice(0, SHOWN_CHANGES)) {
    body.push(
      '',
      `**plan changed: ${codeText(c.statement, STATEMENT_CHARS)}** (${escapeMarkdown(c.workload, 80)}${multiHead ? `, ${escapeMarkdown(c.head, 40)} vs ${escapeMarkdown(c.base, 40)}` : ''})`,
      '',
      '<details><summary>both plans</summary>',
      '',
      `${role('base', c.base)}:`,
      '',
      pre(c.basePlan),
      '',
      `${role('head', c.head)}:`,
      '',
      pre(c.headPlan),
      '',
      '</details>',
    );
  }
  if (report.changed.length > SHOWN_CHANGES) {
    body.push(
      '',
      `… and ${report.changed.length - SHOWN_CHANGES} more changed plans in results.json (\`plans\`).`,
    );
  }
  if (report.movers.length > 0) {
    body.push(
      '',
      `**Statements whose cost per call moved most** (pg_stat_statements over ${report.transactions ?? '?'} transactions at 1 client; time is one short run's, a diagnostic):`,
      '',
      `| statement |${multiHead ? ' head |' : ''} calls/tx | µs/call base → head | Δ | shared blocks/call base → head | Δ |`,
      `| --- |${multiHead ? ' --- |' : ''} ---: | ---: | ---: | ---: | ---: |`,
      ...report.movers.map(
        (m) =>
          `| ${codeText(m.statement, STATEMENT_CHARS)} |${multiHead ? ` ${escapeMarkdown(m.head, 40)} |` : ''} ${num(m.headCost.callsPerTx, 2)} | ${us(m.base.msPerCall)} → ${us(m.headCost.msPerCall)} | ${pctCell(m.timeDeltaPct)} | ${blocks(m.base.blocksPerCall)} → ${blocks(m.headCost.blocksPerCall)} | ${pctCell(m.blocksDeltaPct)} |`,
      ),
    );
  }
  if (report.notes.length > 0) body.push('', ...report.notes.map((n) => `- ${escapeMarkdown(n, 300)}`));
  return { summary, body };
}

/** A plan as preformatted HTML (escaped line by line; GitHub links no mention inside <pre>). */
function pre(plan: string): string {
  const cut = plan.length > PLAN_CHARS ? `${plan.slice(0, PLAN_CHARS)}\n…` : plan;
  return `<pre>${cut
    .split('\n')
    .map((l) => escapeHtml(l))
    .join('\n')}</pre>`;
}

/** "base", or "base (label)" when the arm has another label. */
function role(what: 'base' | 'head', label: string): string {
  return label === what ? what : `${what} (${escapeMarkdown(label, 40)})`;
}

function short(statement: string): string {
  return statement.length > STATEMENT_CHARS ? `${statement.slice(0, STATEMENT_CHARS - 1)}…` : statement;
}

function num(v: number | null, decimals: number): string {
  return v === null ? '–' : v.toFixed(decimals);
}

/** Milliseconds as microseconds, one decimal. */
function us(v: number | null): string {
  return v === null
    ? '–'
    : (v * 1000).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
}

function blocks(v: number | null): string {
  return num(v, 1);
}

function pctCell(v: number | null): string {
  return v === null ? '–' : `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`;
}

function pct(v: number | null): string {
  return v === null ? '' : ` (${pctCell(v)})`;
}
