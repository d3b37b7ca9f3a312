/**
 * The comparison as a plain-text mail: what a reviewer pastes into a reply on pgsql-hackers, where patches
 * are discussed in plain text (issue #32). ASCII only, no markup, every line at most MAIL_WIDTH columns,
 * long names, paths and URLs included. Top to bottom: the decision's own headline (never decided again
 * here); what was compared (with the commitfest entry head was built from); the cells that decide it with
 * their deltas, intervals (level and test) and verdicts, from the decision and the table model
 * (table-model.ts), cells alike but for their client count said once; the steady costs per transaction
 * where recorded (WAL, buffers, backend CPU, instructions) and the largest instruction movers of the cells
 * that changed on instructions; the tables' notes and scaling curves, as the terminal has them under its
 * tables; the statements' plans that changed and the largest movers of cost per call
 * (plan-section.ts); what differs in the compiled code; why the cells are undecided and the warnings, each
 * said once, in the terminal's words (the client binary and the stored baseline join the Compared
 * paragraph, as on the terminal); the commands that reproduce those cells
 * (reproduce.ts); the link to the full report when the results name the run. Pure: no I/O.
 */
import { describeDecidedCell, type DecidedCell, type Decision } from '../../compare/decision/decision.js';
import { steadySummary } from '../../compare/evidence/steady-summary.js';
import { formatLevel, formatP } from '../../compare/format.js';
import type { RunComparison } from '../../compare/comparison-types.js';
import { METRICS } from '../../results/metrics.js';
import { plainText } from '../../util/plain-text.js';
import { compiledCodeLines } from '../evidence/compiled-code-lines.js';
import { curveLine } from '../evidence/curve-line.js';
import { costLines } from '../evidence/cost-line.js';
import { gateRecordLines } from '../evidence/gate-record-line.js';
import { clientLines } from '../evidence/client-line.js';
import {
  analysisLines,
  compared,
  decisionLine,
  describeStoredBaseline,
  reasonTexts,
  steadyCellLine,
  warningTexts,
  WHY_HEADING,
} from '../terminal/comparison-text.js';
import { instructionReport, moverTextLines } from '../evidence/instruction-section.js';
import type { JobSummaryInput } from '../markdown/markdown-context.js';
import { planText } from '../evidence/plan-section.js';
import { reproductions, type Reproduction } from '../reproduce.js';
import { cellTargets, MAX_WORKLOADS } from '../markdown/reproduce-section.js';
import { clientsLabel, groupedNumber } from '../table-cells.js';
import { buildTables, type TableRow } from '../table-model.js';
import { VERDICT_DISPLAY } from '../verdict-display.js';

/**
 * The widest line. RFC 5322 section 2.1.1 asks for at most 78 characters; 72 leaves room for three levels
 * of "> " quoting in the replies to the reply.
 */
export const MAIL_WIDTH = 72;

/** Entries shown with their numbers (cells alike said once): a reply stays short; the report has all. */
const MAX_ENTRIES = 6;

export type MailReportInput = Pick<JobSummaryInput, 'result' | 'comparison' | 'decision' | 'runUrl'>;

/** The mail's text: paragraphs apart by a blank line, each line ASCII and at most MAIL_WIDTH columns. */
export function renderMailReport(input: MailReportInput): string {
  const { result, comparison: c, decision } = input;
  const cells = decidingCells(decision);
  const entries = cellEntries(c, cells).slice(0, MAX_ENTRIES);
  const shown = entries.flatMap((e) => e.cells);
  const blocks: string[][] = [
    wrap(decisionLine(decision)),
    [
      compared(c, result.source?.commitfest),
      ...clientLines(result.clients ?? []),
      ...(result.baseline ? [describeStoredBaseline(result.baseline)] : []),
      ...analysisLines(c, decision),
    ].flatMap((line) => wrap(upperFirst(line), '', '  ')),
    cellBlock(decision, cells, entries),
    perTransaction(input, shown),
    instructionMovers(input, shown),
    listed('Notes:', cellNotes(c)),
    planLines(c),
    [...compiledCodeLines(c), ...costLines(c), ...gateRecordLines(c)].flatMap((line) =>
      wrap(upperFirst(line), '', '  '),
    ),
    listed(upperFirst(WHY_HEADING), reasonTexts(decision)),
    listed('Warnings:', warningTexts(c)),
    ...reproduceBlocks(result, shown),
    input.runUrl === undefined ? [] : link('Full report:', input.runUrl),
  ];
  return `${blocks
    .filter((b) => b.length > 0)
    .map((b) => b.join('\n'))
    .join('\n\n')}\n`;
}

/**
 * The cells behind the decision, worst first (the decision's order): every one not passed (failing,
 * regressed, improved, undecided); when all passed, all of them.
 */
function decidingCells(d: Decision): DecidedCell[] {
  const open = d.cells.filter((c) => c.verdict !== 'no-change' && c.verdict !== 'not-worse');
  return open.length > 0 ? open : d.cells;
}

/**
 * Deciding cells that read alike but for their client count, said once: one description, verdict and test
 * for all of them (a run that measured nothing has the same "no data" in every cell).
 */
interface CellEntry {
  /** In the decision's order; the entry stands where its most adverse cell does. */
  cells: DecidedCell[];
  /** The first cell's describeDecidedCell text, and where in it the client count is. */
  text: string;
  clientsAt?: { start: number; end: number };
  verdict: string;
  test: string;
}

function cellEntries(c: RunComparison, cells: DecidedCell[]): CellEntry[] {
  const rows = new Map(
    buildTables(c).flatMap((arm) =>
      arm.workloads.flatMap((w) =>
        w.tables.flatMap((t) => t.rows.map((r) => [rowKey(arm.head, r.id, t.metric), r] as const)),
      ),
    ),
  );
  const heads = c.comparisons.length;
  const entries = new Map<string, CellEntry>();
  for (const cell of cells) {
    const row = rows.get(rowKey(cell.head, cell.id, cell.metric));
    const text = describeDecidedCell(cell, heads);
    const clientsAt = clientsSpan(cell, text);
    const verdict = verdictText(cell, row);
    const test = testText(cell, row);
    const where = clientsAt ? `${text.slice(0, clientsAt.start)}\u0000${text.slice(clientsAt.end)}` : text;
    const key = [where, verdict, test].join('\u0000');
    const entry = entries.get(key);
    if (entry) entry.cells.push(cell);
    else entries.set(key, { cells: [cell], text, ...(clientsAt ? { clientsAt } : {}), verdict, test });
  }
  return [...entries.values()];
}

/**
 * Where describeDecidedCell names the cell's client count ("2 clients" in "select-only at 2 clients,
 * TPS ..."): at its last " at N clients, <metric>", since the names before it may hold anything.
 */
function clientsSpan(cell: DecidedCell, text: string): CellEntry['clientsAt'] {
  const clients = clientsLabel([cell.clients]);
  const at = text.lastIndexOf(` at ${clients}, ${METRICS[cell.metric].label}`);
  return at < 0 ? undefined : { start: at + 4, end: at + 4 + clients.length };
}

function cellBlock(d: Decision, cells: DecidedCell[], entries: CellEntry[]): string[] {
  if (entries.length === 0) return [];
  const shown = entries.flatMap((e) => e.cells);
  // The counts are of cells, never of entries; "most adverse" only while the shown cells are the first ones.
  const mostAdverse = cells.slice(0, shown.length).every((cell) => shown.includes(cell));
  const more =
    shown.length === cells.length
      ? ''
      : mostAdverse
        ? `, the ${shown.length} most adverse shown`
        : `, ${shown.length} shown, the most adverse first`;
  return [
    ...wrap(`Deciding cells (${cells.length} of ${d.counts.cells}${more}):`),
    ...entries.flatMap((e) => [
      ...wrap(entryText(e), '- ', '  '),
      ...wrap(e.verdict, '  ', '  '),
      ...wrap(e.test, '  ', '  '),
    ]),
  ];
}

/** "select-only at 1, 2 and 4 clients, TPS: no data": the first cell's text, every cell's client count. */
function entryText(e: CellEntry): string {
  if (e.cells.length === 1 || !e.clientsAt) return e.text;
  const clients = clientsLabel(e.cells.map((c) => c.clients).sort((a, b) => a - b));
  return `${e.text.slice(0, e.clientsAt.start)}${clients}${e.text.slice(e.clientsAt.end)}`;
}

function rowKey(head: string, id: string, metric: string): string {
  return `${head}\u0000${id}\u0000${metric}`;
}

/** "regression (significant, beyond ±2%), fails the gate (fail-on regression)". */
function verdictText(cell: DecidedCell, row: TableRow | undefined): string {
  const reason = row?.reason ? ` (${row.reason})` : '';
  const gate = [
    ...(cell.failsGate ? [`fails the gate (fail-on ${cell.failOn})`] : []),
    ...(cell.confirmation ? [cell.confirmation.message] : []),
    ...(cell.accepted ? [`accepted by @${cell.accepted.by}: ${cell.accepted.reason}`] : []),
  ];
  return [`${VERDICT_DISPLAY[cell.verdict].word}${reason}`, ...gate].join('; ');
}

/** What the interval is and which test decided: "75% CI of the paired Hodges-Lehmann shift; ...". */
function testText(cell: DecidedCell, row: TableRow | undefined): string {
  const level = cell.ci95 ? `${formatLevel(cell.ci95.level)} CI` : 'no CI';
  const p =
    row?.p === null || row?.p === undefined
      ? ''
      : `: p ${formatP(row.p)}, Holm-adjusted ${formatP(row.pAdjusted ?? row.p)}`;
  switch (row?.test) {
    case 'signed-rank':
      return `${level} of the paired Hodges-Lehmann shift; Wilcoxon signed-rank test over ${row.pairs ?? row.headN} rounds${p}`;
    case 'mann-whitney':
      return `${level} of the unpaired Hodges-Lehmann shift; Mann-Whitney rank-sum test over ${row.baseN} base and ${row.headN} head runs${p}`;
    default:
      return `decided by ${cell.evidence}`;
  }
}

/** Per shown cell, what one transaction cost base and head: WAL, buffers, backend CPU, instructions. */
function perTransaction(input: MailReportInput, shown: DecidedCell[]): string[] {
  const instructions = instructionReport(input.result, input.comparison)?.rows ?? [];
  const steady = steadySummary(input.result);
  const heads = new Set(shown.map((c) => c.head)).size;
  const seen = new Set<string>();
  const lines = shown.flatMap((cell) => {
    const key = rowKey(cell.head, cell.id, '');
    if (seen.has(key)) return [];
    seen.add(key);
    const costs = steady.find((s) => s.head === cell.head && s.cell === cell.id);
    const counted = instructions.find((r) => r.head === cell.head && r.cell === cell.id);
    const parts = [
      ...(costs ? steadyCellLine(costs).split('; ') : []),
      ...(counted ? [instructionText(counted)] : []),
    ];
    if (parts.length === 0) return [];
    return wrap(
      `${heads > 1 ? `${cell.head} ` : ''}${cell.id}: ${parts.map(unbroken).join('; ')}`,
      '- ',
      '  ',
    );
  });
  return lines.length === 0 ? [] : ['Per transaction, base -> head (medians over the runs):', ...lines];
}

/**
 * The largest instruction movers of the shown cells that changed on instructions (as the terminal and the
 * comment list them): where the instructions went, e.g. "- standard_ExecutorRun 1,000 -> 19,005
 * (+18,005 instr/tx)".
 */
function instructionMovers(input: MailReportInput, shown: DecidedCell[]): string[] {
  const movers = moverTextLines(
    instructionReport(input.result, input.comparison),
    shown.map((c) => ({ head: c.head, cell: c.id })),
  );
  if (!movers) return [];
  return [
    ...wrap(upperFirst(movers.heading)),
    ...movers.cells.flatMap((cell) => [
      ...wrap(cell.title),
      ...cell.movers.flatMap((m) => wrap(m, '- ', '  ')),
    ]),
  ];
}

/**
 * The statements' plans as the terminal says them (plan-section.ts): each changed plan with the first plan
 * lines that differ ("Plan changed: SELECT ... (select-only: Index Scan ... -> Seq Scan ...)"), or that none
 * changed; the largest movers of cost per call; what could not be taken.
 */
function planLines(c: RunComparison): string[] {
  const text = planText(c.plans);
  if (!text) return [];
  return [
    ...text.changes.flatMap((line) => wrap(upperFirst(line), '', '  ')),
    ...(text.movers
      ? [
          ...wrap(upperFirst(text.movers.heading)),
          ...text.movers.statements.flatMap((m) =>
            wrap(`${m.statement}: ${m.costs.map(unbroken).join(', ')}`, '- ', '  '),
          ),
        ]
      : []),
    // A note starts with a workload's name: not capitalised.
    ...text.notes.flatMap((note) => wrap(note, '', '  ')),
  ];
}

/**
 * The notes the terminal prints under each table (why a cell is unstable, which test decides, a
 * confirmation block's outcome) and each workload's scaling-curve line, named by workload and client
 * counts (and head, when several), each said once.
 */
function cellNotes(c: RunComparison): string[] {
  const heads = c.comparisons.length;
  // Message -> the places it is said of: one note said of several workloads is one item naming them all.
  const places = new Map<string, string[]>();
  const add = (message: string, place: string) => {
    const list = places.get(message) ?? [];
    if (!list.includes(place)) list.push(place);
    places.set(message, list);
  };
  for (const arm of buildTables(c)) {
    const head = heads > 1 ? `head '${arm.head}' ` : '';
    for (const w of arm.workloads) {
      for (const t of w.tables) {
        const what = `${head}${w.workload}${t.primary ? '' : ` ${t.label}`}`;
        for (const n of t.notes) add(n.message, `${what} at ${clientsLabel(n.clients)}`);
      }
      if (w.curve) add(`curve: ${curveLine(w.curve, (v) => v.toFixed(1))}`, `${head}${w.workload}`);
    }
  }
  return [...places].map(([message, where]) => `${where.join('; ')}: ${message}`);
}

/** A heading and its items as "- " entries; nothing when there are none. */
function listed(heading: string, items: readonly string[]): string[] {
  return items.length === 0 ? [] : [...wrap(heading), ...items.flatMap((item) => wrap(item, '- ', '  '))];
}

function instructionText(r: {
  baseMedian: number | null;
  headMedian: number | null;
  deltaPct: number | null;
}): string {
  const value = (v: number | null) => (v === null ? '-' : groupedNumber(v, 0));
  const delta = r.deltaPct === null ? '' : ` (${r.deltaPct >= 0 ? '+' : ''}${r.deltaPct.toFixed(2)}%)`;
  return `instr/tx ${value(r.baseMedian)} -> ${value(r.headMedian)}${delta}`;
}

/**
 * The commands that re-measure the shown cells (reproduce.ts), as they are to be pasted: flush left (a
 * heredoc ends at a line that is its marker alone), the workload's YAML folded to the width, the shell
 * lines folded where the shell joins them again (foldShell).
 */
function reproduceBlocks(result: MailReportInput['result'], shown: DecidedCell[]): string[][] {
  const found = reproductions(result, cellTargets(shown).slice(0, MAX_WORKLOADS), { width: MAIL_WIDTH });
  return found.map((r) => {
    const where = `Reproduce ${r.workload} at ${clientsLabel(r.clients)}, in a clone of pgperf after npm run quickstart (it puts pgperf on the PATH)`;
    const copy =
      r.scriptFiles.length > 0
        ? `; copy ${r.scriptFiles.join(', ')} from the workload's directory beside ${r.file} first`
        : '';
    const script = fittedScript(r);
    if (script === undefined) {
      return wrap(
        `${where}: the commands hold characters a plain-text mail cannot carry; pgperf compare --format markdown on the results file prints them.`,
      );
    }
    return [...wrap(`${where}${copy}:`), '', ...script];
  });
}

/** The script's lines folded to the width; undefined when a line holds what plain ASCII text cannot. */
function fittedScript(r: Reproduction): string[] | undefined {
  const lines = r.script.split('\n');
  const marker = /<<'([^']+)'$/.exec(lines[0]!)?.[1];
  const end = marker === undefined ? -1 : lines.indexOf(marker, 1);
  if (end < 0) return undefined;
  const fitted = [
    ...foldShell(lines.slice(0, 1)),
    ...lines.slice(1, end + 1),
    ...foldShell(lines.slice(end + 1)),
  ];
  const printable = fitted.every((line) => line.length <= MAIL_WIDTH && /^[\x20-\x7e]*$/.test(line));
  return printable ? fitted : undefined;
}

/**
 * Shell lines cut to MAIL_WIDTH so that the shell reads the same words: at a space between words, with a
 * backslash-newline and an indented continuation; where no space fits, inside a word, the rest at column 0
 * (a backslash-newline is removed before words are split, so the halves join; inside single quotes the
 * quote is closed before it and opened again after). Never between a backslash and the character it
 * escapes. The quoting state runs on from line to line (a quoted word may hold a newline).
 */
export function foldShell(lines: readonly string[]): string[] {
  const out: string[] = [];
  let quotedAtStart = false;
  for (const line of lines) {
    let rest = line;
    let quoted = quotedAtStart;
    for (;;) {
      const states = quoting(rest, quoted);
      if (rest.length <= MAIL_WIDTH) {
        quotedAtStart = states.at(-1)!.quoted;
        break;
      }
      const space = spaceCut(rest, states);
      if (space > 0) {
        out.push(`${rest.slice(0, space)} \\`);
        rest = `    ${rest.slice(space + 1).trimStart()}`;
        quoted = false;
        continue;
      }
      let at = MAIL_WIDTH - 1;
      while (at > 1 && (states[at]!.escaped || at + (states[at]!.quoted ? 2 : 1) > MAIL_WIDTH)) at--;
      const inQuote = states[at]!.quoted;
      out.push(`${rest.slice(0, at)}${inQuote ? "'" : ''}\\`);
      rest = `${inQuote ? "'" : ''}${rest.slice(at)}`;
      quoted = false; // the quote, if any, is opened again by the rest's first character
    }
    out.push(rest);
  }
  return out;
}

/** Before each character (and after the last): inside single quotes, and escaped by a backslash. */
function quoting(text: string, quotedAtStart: boolean): Array<{ quoted: boolean; escaped: boolean }> {
  const states: Array<{ quoted: boolean; escaped: boolean }> = [];
  let quoted = quotedAtStart;
  let escaped = false;
  for (const ch of text) {
    states.push({ quoted, escaped });
    if (quoted) quoted = ch !== "'";
    else if (escaped) escaped = false;
    else if (ch === '\\') escaped = true;
    else if (ch === "'") quoted = true;
  }
  states.push({ quoted, escaped });
  return states;
}

/** The last space between words (unquoted, after the indentation) that leaves room for " \"; 0: none. */
function spaceCut(text: string, states: ReadonlyArray<{ quoted: boolean; escaped: boolean }>): number {
  const indent = text.length - text.trimStart().length;
  for (let i = Math.min(MAIL_WIDTH - 2, text.length - 1); i > indent; i--) {
    if (text[i] === ' ' && !states[i]!.quoted && !states[i]!.escaped) return i;
  }
  return 0;
}

/**
 * "Full report: <https://...>": a URL too long for one line is broken after a "/" or wherever it must be,
 * inside angle brackets, as RFC 3986 Appendix C describes (the whitespace added is not part of it).
 * Characters beyond ASCII are percent-encoded as in a URI (RFC 3987 section 3.1).
 */
function link(label: string, url: string): string[] {
  const uri = `<${plainText(url)
    .trim()
    .replace(/[^\x21-\x7e]|[<>"]/gu, (ch) => encodeURIComponent(ch))}>`;
  if (label.length + 1 + uri.length <= MAIL_WIDTH) return [`${label} ${uri}`];
  const lines = [label];
  let rest = uri;
  while (rest.length > MAIL_WIDTH) {
    const slash = rest.lastIndexOf('/', MAIL_WIDTH - 1);
    const at = slash > MAIL_WIDTH / 2 ? slash + 1 : MAIL_WIDTH;
    lines.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  return [...lines, rest];
}

/** Non-ASCII characters the reports use, as ASCII; any other becomes its base letter, else "?". */
const ASCII_FOR: Record<string, string> = {
  '±': '+/-',
  '→': '->',
  '←': '<-',
  '–': '-',
  '—': '-',
  '−': '-',
  '≥': '>=',
  '≤': '<=',
  '×': 'x',
  '·': '-',
  µ: 'u',
  μ: 'u',
  α: 'alpha',
  δ: 'delta',
  Δ: 'delta',
  '‘': "'",
  '’': "'",
  '“': '"',
  '”': '"',
};

/**
 * Text as one line of printable ASCII: control and bidirectional characters become spaces (plainText),
 * the report's own symbols their ASCII spelling ("±2%" -> "+/-2%", "…" -> "..."), accented letters their
 * base letter, anything else "?".
 *
 * @example asciiText('CI inside ±2%, int4mi, …') === 'CI inside +/-2%, int4mi, ...'
 */
export function asciiText(text: string): string {
  return plainText(text)
    .replace(/[^\x20-\x7e]/gu, (ch) => ASCII_FOR[ch] ?? ch.normalize('NFKD'))
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, (ch) => ASCII_FOR[ch] ?? '?');
}

/** A space wrap() does not break at (it becomes a plain space). */
const NO_BREAK = '\u00a0';

/** One figure's "base -> head (change)", kept on one line where it fits on one. */
function unbroken(text: string): string {
  return text.replace(/ /g, NO_BREAK);
}

/** A bracketed group this short, an interval such as "[95% CI -11.04%, -8.56%]", is kept on one line. */
const SHORT_GROUP = /\[[^\]]{1,40}\]/g;

/**
 * `text` as lines of at most MAIL_WIDTH columns, broken at spaces (not at NO_BREAK, nor inside a short
 * bracketed group): the first line starts with `first`, the others with `rest`; a word longer than a line
 * is cut.
 *
 * @example wrap('a b', '- ', '  ') === ['- a b']
 */
export function wrap(text: string, first = '', rest = first): string[] {
  const room = MAIL_WIDTH - Math.max(first.length, rest.length);
  const words = plainText(text)
    .replace(SHORT_GROUP, (group) => group.replace(/ /g, NO_BREAK))
    .split(' ')
    .filter((w) => w !== '')
    .map((w) => asciiText(w.replace(/\u00a0/g, ' ')))
    .flatMap((w) => w.match(new RegExp(`.{1,${room}}`, 'g'))!);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line === '') line = `${lines.length === 0 ? first : rest}${word}`;
    else if (line.length + 1 + word.length <= MAIL_WIDTH) line += ` ${word}`;
    else {
      lines.push(line);
      line = `${rest}${word}`;
    }
  }
  return line === '' ? lines : [...lines, line];
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
