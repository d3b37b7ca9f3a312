/**
 * Plain-text terminal rendering of a RunComparison: the verdict first, then per head arm and workload the
 * tables of table-model.ts as aligned columns with the cells' notes and the curve summary, then the
 * warnings.
 */
import { headlineText, type Decision } from '../../compare/decision/decision.js';
import { plainText } from '../../util/plain-text.js';
import { formatP } from '../../compare/format.js';
import type { RunComparison } from '../../compare/comparison-types.js';
import { METRICS, STEADY_METRICS } from '../../results/metrics.js';
import { INSTRUCTION_METRIC } from '../../compare/evidence/instruction-rule.js';
import { curveLine } from '../evidence/curve-line.js';
import { UNSTABLE_PHRASE, reasonSentence } from '../reasons.js';
import { columns, PLAIN_CELLS, rowTexts } from '../table-cells.js';
import { MEMORY_CONTEXTS_LEAD, memoryContextsText } from '../evidence/memory-contexts-text.js';
import { buildTables, type ArmTables } from '../table-model.js';
import { compiledCodeLines } from '../evidence/compiled-code-lines.js';
import { costLines } from '../evidence/cost-line.js';
import { gateRecordLines } from '../evidence/gate-record-line.js';
import { cellText } from '../evidence/steady-metrics-section.js';
import type { SteadyCellSummary } from '../../compare/evidence/steady-summary.js';
import type {
  ClientInfo,
  CommitfestEntry,
  RunSource,
  StoredBaselineInfo,
} from '../../results/result-types.js';
import type { InstructionsRecord } from '../../results/instructions.js';
import { instructionReport, moverTextLines } from '../evidence/instruction-section.js';
import { clientLines } from '../evidence/client-line.js';
import { planTextLines } from '../evidence/plan-section.js';

/**
 * The decision first (what the gate says and the cell behind it), then what was compared and how, the
 * tables, the reasons said once, and the warnings. `baseline`: the stored run the base samples came from
 * (`--baseline stored`), named under the decision; `clients`: the client binaries that drove every arm;
 * `instructions`: the run's instruction counts, whose changed cells' largest movers are listed.
 */
export function renderComparisonText(
  c: RunComparison,
  decision: Decision,
  baseline?: StoredBaselineInfo,
  steady: readonly SteadyCellSummary[] = [],
  clients: readonly ClientInfo[] = [],
  source?: Pick<RunSource, 'commitfest'>,
  instructions?: InstructionsRecord,
): string {
  const lines: string[] = [
    decisionLine(decision),
    compared(c, source?.commitfest),
    ...clientLines(clients),
    ...(baseline ? [describeStoredBaseline(baseline)] : []),
    ...analysisLines(c, decision),
    ...compiledCodeLines(c),
    ...costLines(c),
    ...gateRecordLines(c),
  ];
  for (const arm of buildTables(c)) lines.push('', ...renderArm(arm));
  lines.push(...steadyLines(steady));
  lines.push(...moverLines(c, instructions));
  lines.push(...planTextLines(c.plans));
  const reasons = reasonTexts(decision);
  if (reasons.length > 0) lines.push('', WHY_HEADING, ...reasons.map((r) => `  - ${r}`));
  const warnings = warningTexts(c);
  if (warnings.length > 0) lines.push('', 'warnings:', ...warnings.map((w) => `  - ${w}`));
  // Names from users and the machine are plain text: no control character (a terminal escape, a line
  // break) or bidirectional override reaches the terminal.
  return `${lines.map((line) => plainText(line)).join('\n')}\n`;
}

/** What one transaction cost the server, per cell (the comment's "Steady per-transaction costs"). */
function steadyLines(cells: readonly SteadyCellSummary[]): string[] {
  if (cells.length === 0) return [];
  const heads = new Set(cells.map((c) => c.head)).size;
  return [
    '',
    'steady per-transaction costs and backend memory, base -> head (medians over the runs; gated where a workload lists them in metrics, memory also beyond its floors):',
    ...cells.flatMap((c) => [
      `  ${heads > 1 ? `${c.head} ` : ''}${c.cell}: ${steadyCellLine(c)}`,
      ...(c.memoryContexts
        ? [`    ${MEMORY_CONTEXTS_LEAD}: ${memoryContextsText(c.memoryContexts)}`.replace(/→/g, '->')]
        : []),
    ]),
  ];
}

/** The largest instruction movers of every cell that changed on instructions (as the comment lists them). */
function moverLines(c: RunComparison, instructions: InstructionsRecord | undefined): string[] {
  const movers = instructions ? moverTextLines(instructionReport({ instructions }, c)) : undefined;
  if (!movers) return [];
  return [
    '',
    movers.heading,
    ...movers.cells.flatMap((cell) => [`  ${cell.title}`, ...cell.movers.map((m) => `    ${m}`)]),
  ];
}

/**
 * "WAL bytes/tx 120 -> 122 (+1.7%); ...; backend CPU/tx 738 -> 376 µs (-49.1%)": one cell's steady costs,
 * base -> head, each with its unit where the label does not say it (a time: µs, ms).
 */
export function steadyCellLine(c: SteadyCellSummary): string {
  return STEADY_METRICS.filter((m) => c.metrics.some((r) => r.metric === m))
    .map((m) => {
      const unit: string = METRICS[m].unit;
      const time = unit === 'µs' || unit === 'ms' ? unit : undefined;
      return `${METRICS[m].label} ${cellText(c, m, time).replace(/→/g, '->')}`;
    })
    .join('; ');
}

const OUTCOME_WORDS = {
  passed: 'PASSED',
  failed: 'FAILED',
  pending: 'PENDING',
  incomplete: 'INCOMPLETE',
} as const;

/** "FAILED: 1 regression: select-only at 2 clients, TPS -12.60% [95% CI -15.10%, -9.80%]". */
export function decisionLine(d: Pick<Decision, 'outcome' | 'headline'>): string {
  return `${OUTCOME_WORDS[d.outcome]}: ${headlineText(d)}`;
}

/** The heading of the reasons (the terminal's and the mail's). */
export const WHY_HEADING = 'why (each said once):';

/** Each reason once, with the cells it applies to: "smoke@1 TPS and 3 more: <sentence>". */
export function reasonTexts(d: Pick<Decision, 'reasons'>): string[] {
  return d.reasons.map((r) => {
    const cells =
      r.cells.length > 4
        ? `${r.cells.slice(0, 4).join(', ')} and ${r.cells.length - 4} more`
        : r.cells.join(', ');
    return `${cells}: ${reasonSentence(r)}`;
  });
}

/** The comparison's warnings, each once (merged documents may carry one twice). */
export function warningTexts(c: Pick<RunComparison, 'warnings'>): string[] {
  return [...new Set(c.warnings)];
}

/**
 * "compared: 'head' vs base 'base' (TPS, higher is better)"; a head built from a commitfest entry is named:
 * "compared: 'head', commitfest entry 4711 (cf/4711), vs base 'base' (...)".
 */
export function compared(c: RunComparison, commitfest?: CommitfestEntry): string {
  const what = c.gatedMetrics.map((m) => `${METRICS[m].label}, ${METRICS[m].better} is better`).join('; ');
  if (c.comparisons.length === 0) return `nothing to compare (${what})`;
  const arms = c.comparisons.map((a) => `'${a.head}'`).join(', ');
  const entry = commitfest ? `, ${describeCommitfest(commitfest)},` : '';
  return `compared: ${arms}${entry} vs base '${c.baseline}' (${what})`;
}

/** "commitfest entry 4711 (cf/4711)": how reports name the entry a head was built from. */
export function describeCommitfest(entry: CommitfestEntry): string {
  return `commitfest entry ${entry.id} (${entry.branch})`;
}

/**
 * How the comparison decided: "alpha 0.05, Holm over 9 cell(s) per arm, default threshold 2%, fail-on
 * regression" (thresholdText), and the sequential look that decided, if any.
 */
export function analysisLines(c: RunComparison, d: Decision): string[] {
  const families = [...new Set(c.comparisons.map((a) => a.familySize))].join('/');
  const unit = c.gatedMetrics.length > 1 ? 'cell-metric hypotheses' : 'cell(s)';
  const holm = families === '' ? '' : `, Holm over ${families} ${unit} per arm`;
  const lines = [`alpha ${formatP(c.alpha)}${holm}, ${thresholdText(c)}, fail-on ${d.failOn}`];
  if (c.sequential) {
    const s = c.sequential;
    lines.push(
      `decided at sequential look ${s.look} of ${s.looks} (schedule ${s.schedule.join(', ')} rounds), ` +
        `per-look alpha ${formatP(s.perLookAlpha)}` +
        (s.spending ? `, ${s.spending === 'pocock' ? 'Pocock' : "O'Brien-Fleming"} alpha-spending` : ''),
    );
  }
  return lines;
}

/**
 * Which threshold applies: "default threshold 2%" (a workload's own threshold wins; its table says it), or
 * "threshold 3% for every workload (asked for this analysis; set aside: w's own 10%)"; and the instruction
 * counts' own threshold where cells gate on them ("instr/tx 1%"), which is not the default's.
 */
export function thresholdText(
  c: Pick<RunComparison, 'thresholdPct' | 'thresholdForAll' | 'comparisons'>,
): string {
  const forAll = c.thresholdForAll;
  const setAside = forAll?.setAside.map((s) => `${s.workload}'s own ${s.thresholdPct}%`).join(', ');
  const main = forAll
    ? `threshold ${c.thresholdPct}% for every workload (asked for this analysis${setAside ? `; set aside: ${setAside}` : ''})`
    : `default threshold ${c.thresholdPct}%`;
  const counted = new Set(
    c.comparisons.flatMap((a) =>
      [...a.cells, ...a.otherMetricCells]
        .filter((cell) => cell.metric === INSTRUCTION_METRIC)
        .map((cell) => cell.thresholdPct),
    ),
  );
  return counted.size === 0
    ? main
    : `${main}, ${METRICS[INSTRUCTION_METRIC].label} ${[...counted].sort((a, b) => a - b).join('/')}%`;
}

function renderArm(arm: ArmTables): string[] {
  // Undecided cells are the ones that keep an arm inconclusive; decided ones decide its verdict.
  const decided =
    arm.decidingCells.length === 0
      ? ''
      : arm.verdict === 'inconclusive'
        ? ` (undecided: ${arm.decidingCells.join(', ')})`
        : ` (decided by ${arm.decidingCells.join(', ')})`;
  const unstable =
    arm.unstableCells.length > 0 ? `; ${UNSTABLE_PHRASE}: ${arm.unstableCells.join(', ')}` : '';
  const lines = [`head '${arm.head}' vs base '${arm.baseline}': ${arm.verdict}${decided}${unstable}`];
  for (const w of arm.workloads) {
    lines.push('', `workload ${w.workload} (threshold ${w.thresholdPct}%)`);
    for (const t of w.tables) {
      if (!t.primary) lines.push(`  ${t.label} (${t.unit}, ${t.better} is better):`);
      const header = columns(t);
      lines.push(
        ...table(
          [header.map((col) => col.header), ...t.rows.map((r) => rowTexts(t, r, PLAIN_CELLS))],
          header.map((col) => col.numeric),
        ),
      );
      for (const note of t.notes) lines.push(`  clients ${note.clients.join(', ')}: ${note.message}`);
    }
    if (w.curve) lines.push(`  curve: ${curveLine(w.curve, (v) => v.toFixed(1))}`);
  }
  if (arm.legend.length > 0) lines.push('', ...arm.legend.map((l) => `  ${l}`));
  return lines;
}

/** Aligns columns; `right[i]` right-aligns column i (numbers). */
function table(rows: string[][], right: boolean[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * "baseline: stored run 20261123T132303Z-a92636b5, commit 1a2b3c4d5e (master), measured 2.5 day(s) ago;
 * sentinel: steady (...)": which stored samples the base is, how old, and what the drift check found.
 */
export function describeStoredBaseline(b: StoredBaselineInfo): string {
  const commit = b.commit
    ? `commit ${b.commit.slice(0, 10)}${b.ref ? ` (${b.ref})` : ''}`
    : b.ref
      ? `ref ${b.ref}`
      : 'commit not recorded';
  const mismatch = b.fingerprintMismatch?.length
    ? `; fingerprint mismatch allowed (${b.fingerprintMismatch.join(', ')} differ)`
    : '';
  return `baseline: stored run ${b.runId}, ${commit}, measured ${b.ageDays} day(s) ago (unpaired test); ${b.sentinel.reason}${mismatch}`;
}
