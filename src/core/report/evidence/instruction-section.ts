/**
 * "CPU instructions per transaction" in the comment's details: the counter and its cost, per cell the
 * medians, spread and verdict of the instruction rule, and for every cell that regressed or improved on
 * instructions the five largest movers of its differential profile (the full profile is a file in the run
 * directory). Data first (instructionReport), then markdown; nothing when the run did not count instructions.
 */
import { INSTRUCTION_METRIC } from '../../compare/analysis/instruction-verdict.js';
import type { CellComparison, RunComparison } from '../../compare/comparison-types.js';
import type { ProfileMover } from '../../results/instructions.js';
import type { RunResult } from '../../results/result-types.js';
import { codeText, escapeMarkdown } from '../markdown-escape.js';

/** Movers shown per changed cell. */
export const SHOWN_MOVERS = 5;

export interface InstructionCellRow {
  cell: string;
  head: string;
  baseMedian: number | null;
  headMedian: number | null;
  deltaPct: number | null;
  baseCvPct: number | null;
  headCvPct: number | null;
  verdict: string;
  /** The largest movers, for regressions and improvements only. */
  movers: ProfileMover[];
  /** The full profile in the run directory. */
  profileFile?: string;
}

export interface InstructionReport {
  counter: string;
  wallS: number;
  rows: InstructionCellRow[];
  notes: string[];
}

export function instructionReport(
  result: Pick<RunResult, 'instructions'>,
  c: RunComparison,
): InstructionReport | undefined {
  const record = result.instructions;
  if (!record) return undefined;
  const rows: InstructionCellRow[] = [];
  for (const arm of c.comparisons) {
    // Among the other gated metrics (--instructions, a workload's `instructions`), or the cells themselves
    // when the counts decide (--metric instructions: withInstructionCells).
    const counted = [...arm.cells, ...arm.otherMetricCells].filter((x) => x.metric === INSTRUCTION_METRIC);
    for (const cell of counted) {
      const profile = record.profiles.find(
        (p) => p.workload === cell.workload && p.clients === cell.clients && p.head === arm.head,
      );
      const changed = cell.verdict === 'regression' || cell.verdict === 'improvement';
      rows.push({
        ...cellNumbers(cell),
        cell: cell.id,
        head: arm.head,
        verdict: cell.verdict,
        movers: changed && profile ? profile.movers.slice(0, SHOWN_MOVERS) : [],
        ...(profile ? { profileFile: profile.file } : {}),
      });
    }
  }
  return {
    counter: record.counter,
    wallS: record.wallS,
    rows,
    notes: [...record.notes, ...record.failures.map((f) => `${f.workload}: not measured: ${f.reason}`)],
  };
}

function cellNumbers(cell: CellComparison) {
  return {
    baseMedian: cell.base.median,
    headMedian: cell.head.median,
    deltaPct: cell.deltaPct,
    baseCvPct: cell.base.cvPct,
    headCvPct: cell.head.cvPct,
  };
}

export function instructionSection(
  result: RunResult,
  c: RunComparison,
): { summary: string; body: string[] } | undefined {
  const report = instructionReport(result, c);
  if (!report) return undefined;
  const headColumn = new Set(report.rows.map((r) => r.head)).size > 1;
  const header = [
    'cell',
    ...(headColumn ? ['head'] : []),
    'base instr/tx',
    'head instr/tx',
    'Δ',
    'CV base / head',
    'verdict',
  ];
  const body = [
    `Counted with ${report.counter === 'cachegrind' ? 'valgrind cachegrind (simulated)' : 'perf (hardware)'} at 1 client, per transaction from the difference of a short and a long run; medians over the repetitions. The phase took ${report.wallS.toFixed(0)} s.`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 || (headColumn && i === 1) ? ' --- ' : ' ---: ')).join('|')}|`,
    ...report.rows.map(
      (r) =>
        `| ${[
          escapeMarkdown(r.cell, 80),
          ...(headColumn ? [escapeMarkdown(r.head, 40)] : []),
          whole(r.baseMedian),
          whole(r.headMedian),
          r.deltaPct === null ? '–' : `${r.deltaPct >= 0 ? '+' : ''}${r.deltaPct.toFixed(2)}%`,
          `${cv(r.baseCvPct)} / ${cv(r.headCvPct)}`,
          r.verdict,
        ].join(' | ')} |`,
    ),
  ];
  for (const r of report.rows.filter((x) => x.movers.length > 0)) {
    body.push(
      '',
      `**${escapeMarkdown(r.cell, 80)}${headColumn ? ` (${escapeMarkdown(r.head, 40)})` : ''}: largest movers** (self instructions per transaction${r.profileFile ? `; full profile: \`${escapeMarkdown(r.profileFile, 200)}\`` : ''})`,
      '',
      ...moversTable(r.movers),
    );
  }
  if (report.notes.length > 0) body.push('', ...report.notes.map((n) => `- ${escapeMarkdown(n, 300)}`));
  return { summary: 'CPU instructions per transaction', body };
}

/** The movers as a markdown table: self instructions per transaction in base and head, and Δ. */
export function moversTable(movers: readonly ProfileMover[]): string[] {
  return [
    '| function | base | head | Δ |',
    '| --- | ---: | ---: | ---: |',
    ...movers.map(
      (m) =>
        `| ${codeText(m.fn, 80)} | ${whole(m.baseIrPerTx)} | ${whole(m.headIrPerTx)} | ${m.deltaIrPerTx >= 0 ? '+' : ''}${whole(m.deltaIrPerTx)} |`,
    ),
  ];
}

/**
 * Plain-text lines of the movers of every changed cell (the terminal's and the mail's): a heading, then per
 * cell its name and profile file and a line per mover, "standard_ExecutorRun 1,000 -> 19,005 (+18,005)".
 * None when no cell has movers. `cells`: only these cells (head and cell id), e.g. the mail's shown ones.
 */
export function moverTextLines(
  report: InstructionReport | undefined,
  cells?: ReadonlyArray<{ head: string; cell: string }>,
): { heading: string; cells: Array<{ title: string; movers: string[] }> } | undefined {
  const rows = (report?.rows ?? []).filter(
    (r) => r.movers.length > 0 && (!cells || cells.some((x) => x.head === r.head && x.cell === r.cell)),
  );
  if (rows.length === 0) return undefined;
  const heads = new Set(report!.rows.map((r) => r.head)).size;
  return {
    heading: 'largest instruction movers per changed cell (self instructions per transaction, base -> head):',
    cells: rows.map((r) => ({
      title: `${heads > 1 ? `${r.head} ` : ''}${r.cell}${r.profileFile ? ` (full profile: ${r.profileFile})` : ''}:`,
      movers: r.movers.map(moverText),
    })),
  };
}

/** "standard_ExecutorRun 1,000 -> 19,005 (+18,005 instr/tx)". */
export function moverText(m: ProfileMover): string {
  return `${m.fn} ${whole(m.baseIrPerTx)} -> ${whole(m.headIrPerTx)} (${m.deltaIrPerTx >= 0 ? '+' : ''}${whole(m.deltaIrPerTx)} instr/tx)`;
}

function whole(v: number | null): string {
  return v === null ? '–' : Math.round(v).toLocaleString('en-US');
}

function cv(v: number | null): string {
  return v === null ? '–' : `${v.toFixed(2)}%`;
}
