/**
 * The decision: "did this patch regress, and what do I do?", made once from a comparison (or the machine
 * classes of a consolidated one) and a gate policy. It holds the overall verdict, every gated cell with the
 * policy that judged it (the failing ones first), the one-line headline, the commit status, the step's
 * failure, the exit code and the reasons, each said once. Every surface (terminal, comment, summary, status,
 * outputs, JSON, exit code) renders this value and decides nothing of its own, so they cannot disagree.
 */
import { clip, headlineText, type DecisionOutcome, type GateDecision } from './flow-decision.js';
import {
  DEFAULT_FAIL_ON,
  acceptanceOf,
  type CellAcceptance,
  type FailOn,
  type GatePolicy,
} from './policy.js';
import { formatPct, formatPctInterval } from '../format.js';
import { overallVerdict } from '../overall.js';
import { METRICS, type MetricName } from '../../results/metrics.js';
import type { AnswerCost } from '../../results/result-types.js';
import type { Better, CellComparison, ReasonCode, RunComparison, Verdict } from '../comparison-types.js';
import { decidedBySameCode } from '../analysis/same-code.js';
import { decidedByUnexecutedCode } from '../analysis/unexecuted-code.js';

export {
  EXIT_CODES,
  STATUS_DESCRIPTION_MAX,
  headlineText,
  type CommitStatusState,
  type DecisionOutcome,
} from './flow-decision.js';

/** One gated hypothesis (cell and metric) as the decision judged it. */
export interface DecidedCell {
  /** The machine class of a consolidated comparison; absent for one run. */
  part?: string;
  head: string;
  /** "workload@clients". */
  id: string;
  workload: string;
  clients: number;
  metric: MetricName;
  verdict: Verdict;
  /** Inconclusive, but its 90% CI lies wholly beyond the threshold on the worse side: gated as a regression. */
  likelyRegression: boolean;
  deltaPct: number | null;
  ci95: { lowerPct: number; upperPct: number; level: number } | null;
  thresholdPct: number;
  /**
   * What decided it, in a few words: "same compiled code", "changed code not executed", "instruction counts,
   * 3 repetitions", "TPS, 14 rounds".
   */
  evidence: string;
  /** The fail-on that judged this cell, and whether it is the workload's own or the run's. */
  failOn: FailOn;
  policy: 'run' | 'workload';
  failsGate: boolean;
  /**
   * A regression the confirmation block did not confirm (src/core/compare/analysis/confirmation.ts): it neither fails
   * nor passes; the decision is pending. `confirmation` says what the block found (absent without a block).
   */
  unconfirmed: boolean;
  confirmation?: { confirmed: boolean; message: string };
  /** A maintainer's acceptance naming this cell (`/pgperf accept`); only a valid one keeps it from failing. */
  accepted?: CellAcceptance;
}

export interface DecisionReason {
  code: ReasonCode;
  /** The first cell's full sentence. */
  message: string;
  /** True when every cell it applies to has the same sentence; else they differ in their numbers. */
  uniform: boolean;
  /** "workload@clients metric" of every cell it applies to. */
  cells: string[];
  /** The first cell's threshold and direction, for a renderer's short phrase (report/reasons.ts). */
  thresholdPct: number;
  better: Better;
}

/** A comparison's decision (flow 'compare', or 'consolidate' over machine classes): the gate's value with its cells. */
export interface Decision extends GateDecision {
  flow: 'compare' | 'consolidate';
  /** Every gated cell, the failing ones first, then regressions, improvements, undecided, no change. */
  cells: DecidedCell[];
  counts: {
    cells: number;
    failing: number;
    /** Regressions, unconfirmed ones included. */
    regressions: number;
    /** Regressions the confirmation block did not confirm, among those that would fail the gate. */
    unconfirmed: number;
    likelyRegressions: number;
    improvements: number;
    noChange: number;
    /** Passed as non-inferior: not worse by δ, but the interval reaches beyond +δ (not 'no change'). */
    notWorse: number;
    inconclusive: number;
    /** In a collapse region of base's curve: reported, not gated. */
    unstable: number;
  };
  /** Why undecided cells are undecided, each reason said once with its cells. */
  reasons: DecisionReason[];
  /** What the answer cost (builds, counted runs, timed rounds, wall seconds), when the run recorded it. */
  cost?: AnswerCost;
}

/** A part of a consolidated comparison: one machine class. */
export interface DecisionPart {
  name?: string;
  comparison: RunComparison;
}

/** Whether the measurement finished; `why` names what is missing ("the run was interrupted (SIGINT)"). */
export interface Completeness {
  complete: boolean;
  why?: string;
}

/** The decision over one comparison, or over the machine classes of a consolidated one. */
export function decide(
  input: RunComparison | readonly DecisionPart[],
  policy: GatePolicy = { failOn: DEFAULT_FAIL_ON, workloads: {} },
  completeness: Completeness = { complete: true },
): Decision {
  const parts: readonly DecisionPart[] = Array.isArray(input)
    ? input
    : [{ comparison: input as RunComparison }];
  const named = parts.length > 1;
  const flow = Array.isArray(input) ? 'consolidate' : 'compare';
  let unstable = 0;
  let failedRuns = 0;
  const cells: DecidedCell[] = [];
  const tested: CellComparison[] = [];
  // The sentences of the cells decided by changed code that did not run (one per head, for the headline).
  const unexecuted = new Set<string>();
  for (const part of parts) {
    for (const arm of part.comparison.comparisons) {
      for (const cell of [...arm.cells, ...arm.otherMetricCells]) {
        failedRuns += cell.base.failed + cell.head.failed;
        if (cell.unstable) {
          unstable++;
          continue;
        }
        // A usable sample in both arms: too few rounds leave it undecided (pending), not incomplete.
        if ((cell.base.n > 0 && cell.head.n > 0) || decidedWithoutRounds(cell)) tested.push(cell);
        if (decidedByUnexecutedCode(cell)) unexecuted.add(cell.reasons[0]!.message);
        cells.push(decidedCell(cell, arm.head, named ? part.name : undefined, policy));
      }
    }
  }
  cells.sort(byRank);
  const counts = {
    cells: cells.length,
    failing: cells.filter((c) => c.failsGate).length,
    regressions: cells.filter((c) => c.verdict === 'regression').length,
    unconfirmed: cells.filter(holdsGate).length,
    likelyRegressions: cells.filter((c) => c.likelyRegression).length,
    improvements: cells.filter((c) => c.verdict === 'improvement').length,
    noChange: cells.filter((c) => c.verdict === 'no-change').length,
    notWorse: cells.filter((c) => c.verdict === 'not-worse').length,
    inconclusive: cells.filter((c) => c.verdict === 'inconclusive' && !c.likelyRegression).length,
    unstable,
  };
  const reasons = collectReasons(parts);
  const failOnText = failOnSummary(policy, cells);

  const incomplete = !completeness.complete
    ? (completeness.why ?? 'the run did not complete')
    : parts.every((p) => p.comparison.comparisons.length === 0)
      ? 'nothing to compare: a comparison needs a base and a head arm'
      : tested.length === 0
        ? `no cell has usable samples${failedRuns > 0 ? ` (${failedRuns} failed run(s))` : ''}`
        : undefined;
  if (incomplete !== undefined) {
    const gates = policy.failOn !== 'never';
    return {
      flow,
      verdict: 'inconclusive',
      outcome: 'incomplete',
      exitCode: gates ? 3 : 0,
      failOn: policy.failOn,
      headline: { lead: 'Incomplete', detail: `${incomplete}; partial results decide nothing` },
      status: { state: 'error', description: clip(`Incomplete: ${incomplete}; no verdict`) },
      ...(gates ? { failure: `${incomplete}: partial results decide nothing (${failOnText})` } : {}),
      deciding: [],
      cells,
      counts,
      reasons,
      incomplete,
    };
  }

  const verdict = named
    ? overallVerdict(parts.map((p, i) => ({ id: String(i), verdict: p.comparison.verdict }))).verdict
    : parts[0]!.comparison.verdict;
  const failing = cells.filter((c) => c.failsGate);
  const outcome: DecisionOutcome =
    failing.length > 0
      ? 'failed'
      : verdict === 'inconclusive' || counts.unconfirmed > 0
        ? 'pending'
        : 'passed';
  // Heads are named wherever the run compared several, even if one of them left no decided cell.
  const heads = new Set(parts.flatMap((p) => p.comparison.comparisons.map((a) => a.head))).size;
  const headline = headlineOf(outcome, counts, cells, policy, heads, [...unexecuted]);
  // The cell the status names: the same the headline names first.
  const lead =
    outcome === 'failed'
      ? failing[0]!
      : outcome === 'pending'
        ? (cells.find(holdsGate) ?? cells.find((c) => c.verdict === 'inconclusive'))
        : cells[0];
  const statusWord = { passed: 'Passed', failed: 'Failed', pending: 'Pending' }[outcome];
  // What decided it: the failing cells, else those that keep it pending, else every gated cell.
  const deciding =
    outcome === 'failed'
      ? failing
      : outcome === 'pending'
        ? cells.filter((c) => holdsGate(c) || c.verdict === 'inconclusive')
        : cells;
  return {
    flow,
    verdict,
    outcome,
    exitCode: outcome === 'failed' ? 1 : 0,
    deciding: deciding.map(cellLabel),
    failOn: policy.failOn,
    headline,
    status: {
      state: outcome === 'failed' ? 'failure' : outcome === 'pending' ? 'pending' : 'success',
      description: clip(`${statusWord}: ${statusDetail(outcome, counts, lead)}`),
    },
    ...(outcome === 'failed' ? { failure: `${headlineText({ headline })} (${failOnText})` } : {}),
    cells,
    counts,
    reasons,
  };
}

/** "ro@64 TPS", with the head when it is not 'head' and the machine class of a consolidation. */
function cellLabel(c: DecidedCell): string {
  const who = [c.part, c.head === 'head' ? undefined : c.head].filter(Boolean).join(' ');
  return `${who ? `${who}: ` : ''}${c.id} ${METRICS[c.metric].label}`;
}

function decidedCell(
  cell: CellComparison,
  head: string,
  part: string | undefined,
  policy: GatePolicy,
): DecidedCell {
  const own = policy.workloads[cell.workload]?.failOn;
  const failOn = own ?? policy.failOn;
  const likelyRegression =
    cell.verdict === 'inconclusive' && cell.reasons.some((r) => r.code === 'likely-regression');
  const accepted = acceptanceOf(cell, METRICS[cell.metric].better, policy.accepted);
  const unconfirmed = cell.verdict === 'regression' && cell.confirmation?.confirmed === false;
  const failsGate =
    failOn !== 'never' &&
    accepted?.state !== 'valid' &&
    ((cell.verdict === 'regression' && !unconfirmed) ||
      likelyRegression ||
      // fail-on inconclusive fails what the data cannot decide: a regression its block did not confirm too.
      (failOn === 'inconclusive' && (cell.verdict === 'inconclusive' || unconfirmed)));
  return {
    ...(part !== undefined ? { part } : {}),
    head,
    id: cell.id,
    workload: cell.workload,
    clients: cell.clients,
    metric: cell.metric,
    verdict: cell.verdict,
    likelyRegression,
    deltaPct: cell.deltaPct,
    ci95: cell.ci95
      ? {
          lowerPct: cell.ci95.lowerPct,
          upperPct: cell.ci95.upperPct,
          level: Math.min(cell.ci95.level, cell.ci95.achievedLevel),
        }
      : null,
    thresholdPct: cell.thresholdPct,
    evidence: evidenceOf(cell),
    failOn,
    policy: own ? 'workload' : 'run',
    failsGate,
    unconfirmed,
    ...(cell.confirmation
      ? { confirmation: { confirmed: cell.confirmation.confirmed, message: cell.confirmation.message } }
      : {}),
    ...(accepted ? { accepted } : {}),
  };
}

const SAME_CODE_EVIDENCE = 'same compiled code';
const UNEXECUTED_EVIDENCE = 'changed code not executed';
const STEADY_EVIDENCE = 'instruction counts';

/** Decided by the compiled code alone, or with the counted runs' profiles: no timed round needed. */
function decidedWithoutRounds(cell: CellComparison): boolean {
  return decidedBySameCode(cell) || decidedByUnexecutedCode(cell);
}

/** What decided a cell (DecidedCell.evidence). */
function evidenceOf(cell: CellComparison): string {
  if (decidedBySameCode(cell)) return SAME_CODE_EVIDENCE;
  if (decidedByUnexecutedCode(cell)) return UNEXECUTED_EVIDENCE;
  const n = cell.pairs ?? Math.min(cell.base.n, cell.head.n);
  if (cell.test === 'instruction-count') return `instruction counts, ${plural(n, 'repetition')}`;
  // "temp bytes/tx 0 B -> 528 kB (+528 kB; medians of 3 and 3 runs)": the change in bytes (memory-verdict.ts).
  if (cell.test === 'memory-floor') return cell.reasons[0]?.message.split(': beyond')[0] ?? 'memory floors';
  const timed = `${METRICS[cell.metric].label}, ${plural(n, cell.pairs === null ? 'run' : 'round')}`;
  return cell.verdict === 'no-change' && cell.reasons[0]?.code === 'steady-unchanged'
    ? `${STEADY_EVIDENCE} + ${timed}`
    : timed;
}

/**
 * An unconfirmed regression that would fail the gate had it confirmed: under fail-on regression it keeps the
 * decision pending (under inconclusive it fails, under never it does not gate).
 */
function holdsGate(c: DecidedCell): boolean {
  return c.unconfirmed && c.failOn === 'regression' && c.accepted?.state !== 'valid';
}

/** Failing first; then regressions, likely ones, improvements, undecided, no change; worst delta first. */
function byRank(a: DecidedCell, b: DecidedCell): number {
  const rank = (c: DecidedCell) =>
    (c.failsGate ? 0 : 10) +
    (c.verdict === 'regression'
      ? 0
      : c.likelyRegression
        ? 1
        : c.verdict === 'improvement'
          ? 2
          : c.verdict === 'inconclusive'
            ? 3
            : 4);
  return rank(a) - rank(b) || adverse(b) - adverse(a);
}

/** How far the cell moved in the worse direction (improvements: how far in the better, for ordering). */
function adverse(c: DecidedCell): number {
  if (c.deltaPct === null) return -Infinity;
  const worse = METRICS[c.metric].better === 'higher' ? -c.deltaPct : c.deltaPct;
  return c.verdict === 'improvement' ? -worse : worse;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "select-only at 2 clients, TPS -12.60% [95% CI -15.10%, -9.80%]" (with head and class where several). */
export function describeDecidedCell(c: DecidedCell, heads = 1): string {
  const where = [
    c.part !== undefined ? `class ${c.part}: ` : '',
    heads > 1 ? `${c.head}: ` : '',
    `${c.workload} at ${plural(c.clients, 'client')}`,
  ].join('');
  const metric = METRICS[c.metric].label;
  // A memory change from nothing has no percent: its evidence says it in bytes (memory-verdict.ts).
  if (c.deltaPct === null)
    return `${where}, ${c.evidence.startsWith(metric) ? c.evidence : `${metric}: no data`}`;
  const ci = c.ci95
    ? ` ${formatPctInterval(c.ci95.lowerPct, c.ci95.upperPct).replace('[', `[${Math.round(c.ci95.level * 1000) / 10}% CI `)}`
    : '';
  return `${where}, ${metric} ${formatPct(c.deltaPct)}${ci}`;
}

/** "select-only@2 TPS -12.6%": the short form the commit status has room for. */
function shortCell(c: DecidedCell): string {
  const where = `${c.part !== undefined ? `${c.part.slice(0, 8)}:` : ''}${c.id}`;
  const delta = c.deltaPct === null ? 'no data' : formatPct(c.deltaPct, 1);
  return `${where} ${METRICS[c.metric].label} ${delta}`;
}

function headlineOf(
  outcome: Exclude<DecisionOutcome, 'incomplete'>,
  counts: Decision['counts'],
  cells: DecidedCell[],
  policy: GatePolicy,
  heads: number,
  unexecuted: readonly string[],
): Decision['headline'] {
  const describe = (c: DecidedCell) => describeDecidedCell(c, heads);
  // The other cells with their change, so the tail reads as a list, not a cut fragment:
  // "; also select-only@4 TPS -3.1%, select-only@8 TPS -2.9% and 2 more cells".
  const more = (list: DecidedCell[]) =>
    list.length > 1
      ? `; also ${list.slice(1, 4).map(shortCell).join(', ')}${
          list.length > 4 ? ` and ${plural(list.length - 4, 'more cell')}` : ''
        }`
      : '';
  const counted = (n: number, what: string, why = '') => (n > 0 ? [`${plural(n, what)}${why}`] : []);
  const likely = counted(counts.likelyRegressions, 'likely regression', ' (too few rounds to certify)');
  const improvements = counted(counts.improvements, 'improvement');
  const found = [...counted(counts.regressions, 'regression'), ...likely, ...improvements];
  if (outcome === 'failed') {
    const failing = cells.filter((c) => c.failsGate);
    const undecided = failing.filter((c) => c.verdict === 'inconclusive' && !c.likelyRegression).length;
    const unconfirmed = failing.filter((c) => c.unconfirmed).length;
    // Regressions the block did not confirm are named as such, not counted with the confirmed ones.
    const confirmed = counts.regressions - cells.filter((c) => c.unconfirmed).length;
    const lead = [
      ...counted(confirmed, 'regression'),
      ...likely,
      ...counted(unconfirmed, 'unconfirmed regression', ' (fail-on inconclusive)'),
      ...counted(undecided, 'undecided cell', ' (fail-on inconclusive)'),
      ...improvements,
    ];
    return { lead: lead.join(', '), detail: `${describe(failing[0]!)}${more(failing)}` };
  }
  if (outcome === 'pending' && counts.unconfirmed > 0) {
    const held = cells.filter(holdsGate);
    return {
      lead: `Unconfirmed regression${held.length > 1 ? `s (${held.length})` : ''}`,
      detail: `${describe(held[0]!)}; ${held[0]!.confirmation!.message}${more(held)}; not a pass, not a fail`,
    };
  }
  if (outcome === 'pending') {
    const undecided = cells.filter((c) => c.verdict === 'inconclusive');
    const worst = undecided[0];
    return {
      lead: `Inconclusive: ${undecided.length} of ${plural(counts.cells, 'cell')} undecided`,
      detail: `${worst ? `most adverse ${describe(worst)}; ` : ''}${found.length > 0 ? found.join(', ') : 'no regression found'}; more rounds would decide`,
    };
  }
  const notGating = cells.filter((c) => c.verdict === 'regression' || c.likelyRegression);
  if (notGating.length > 0) {
    const accepted = notGating.filter((c) => c.accepted?.state === 'valid');
    const why = [
      accepted.length < notGating.length
        ? policy.failOn === 'never' && notGating.every((c) => c.policy === 'run')
          ? 'fail-on never'
          : 'their workloads do not gate (fail-on never)'
        : '',
      acceptedText(accepted),
    ]
      .filter(Boolean)
      .join('; ');
    return {
      lead: `${found.join(', ')}, not gating (${why})`,
      detail: `${describe(notGating[0]!)}${more(notGating)}`,
    };
  }
  if (counts.improvements > 0) {
    const improved = cells.filter((c) => c.verdict === 'improvement');
    return {
      lead: `${found.join(', ')}, no regression`,
      detail: `${describe(improved[0]!)}${more(improved)}`,
    };
  }
  // The timed cells' thresholds (instruction cells have their own, said with their own rule).
  const timed = cells.filter((c) => c.metric !== 'instructions');
  const thresholds = [...new Set((timed.length > 0 ? timed : cells).map((c) => c.thresholdPct))];
  const within = thresholds.length === 1 ? `±${thresholds[0]}%` : "each workload's threshold";
  if (counts.notWorse > 0) {
    const by = thresholds.length === 1 ? `${thresholds[0]}%` : "each workload's threshold";
    return {
      lead: `Not worse in ${plural(counts.cells, 'cell')}`,
      detail:
        `${counts.notWorse} not worse by ${by} or more (one-sided bound; the interval reaches past it on the better side)` +
        `${counts.noChange > 0 ? `, ${counts.noChange} no change (CI inside ${within})` : ''}`,
    };
  }
  const sameCode = cells.filter((c) => c.evidence === SAME_CODE_EVIDENCE).length;
  const notRun = cells.filter((c) => c.evidence === UNEXECUTED_EVIDENCE).length;
  const steady = cells.filter((c) => c.evidence.startsWith(`${STEADY_EVIDENCE} + `));
  const byCounts = cells.filter(
    (c) => c.metric === 'instructions' && c.evidence !== UNEXECUTED_EVIDENCE,
  ).length;
  const inside = counts.cells - sameCode - notRun - steady.length - byCounts;
  if (sameCode === counts.cells) {
    return {
      lead: `No change in ${plural(counts.cells, 'cell')}`,
      detail: 'same compiled code as base, same settings: nothing measured',
    };
  }
  if (notRun === counts.cells && unexecuted.length === 1) {
    return {
      lead: `No change in ${plural(counts.cells, 'cell')} (changed code not executed, not measured)`,
      detail: unexecuted[0]!,
    };
  }
  // What a steady pass could not rule out on the worse side (the 95% CI's bound there), said in the headline.
  const worseBound = steady.flatMap((c) => {
    if (!c.ci95) return [];
    const worse = METRICS[c.metric].better === 'higher' ? -c.ci95.lowerPct : c.ci95.upperPct;
    return worse > 0 ? [worse] : [];
  });
  const parts = [
    ...(sameCode > 0 ? [`${sameCode} by the same compiled code as base (not measured)`] : []),
    ...(notRun > 0
      ? [
          `${notRun} by changed code not executed in the counted runs (not measured; code placement can still move timings)`,
        ]
      : []),
    ...(steady.length > 0
      ? [
          `${steady.length} by unchanged CPU work per transaction with no regression seen` +
            (worseBound.length > 0
              ? ` (a loss of up to ${Math.max(...worseBound).toFixed(1)}% not ruled out)`
              : ''),
        ]
      : []),
    ...(byCounts > 0 ? [`${byCounts} by instruction counts`] : []),
    ...(inside > 0 ? [`${inside} with every 90% CI inside ${within}`] : []),
  ];
  return {
    lead: `No change in ${plural(counts.cells, 'cell')}`,
    detail: parts.length === 1 && inside > 0 ? `every 90% CI inside ${within}` : parts.join(', '),
  };
}

function statusDetail(
  outcome: Exclude<DecisionOutcome, 'incomplete'>,
  counts: Decision['counts'],
  lead: DecidedCell | undefined,
): string {
  if (outcome === 'failed') {
    const kind =
      lead!.verdict === 'regression'
        ? lead!.unconfirmed
          ? 'unconfirmed regression'
          : 'regression'
        : lead!.likelyRegression
          ? 'likely regression'
          : 'undecided';
    return `${kind} ${shortCell(lead!)}${counts.failing > 1 ? ` (+${counts.failing - 1} more)` : ''}`;
  }
  if (outcome === 'pending' && counts.unconfirmed > 0) {
    return `unconfirmed regression ${shortCell(lead!)}${counts.unconfirmed > 1 ? ` (+${counts.unconfirmed - 1} more)` : ''}; not a pass, not a fail`;
  }
  if (outcome === 'pending') {
    const undecided = counts.inconclusive + counts.likelyRegressions;
    return `${undecided} of ${counts.cells} cells undecided${lead ? `, most adverse ${shortCell(lead)}` : ''}; needs more rounds`;
  }
  if (counts.regressions + counts.likelyRegressions > 0) {
    const a = lead!.accepted?.state === 'valid' ? lead!.accepted : undefined;
    return a
      ? `regression accepted by @${a.by}, ${shortCell(lead!)}: ${a.reason}`
      : `regression not gated, ${shortCell(lead!)}`;
  }
  if (counts.improvements > 0)
    return `${plural(counts.improvements, 'improvement')}, best ${shortCell(lead!)}`;
  if (counts.notWorse > 0) return `not worse in ${plural(counts.cells, 'cell')}`;
  const unmeasured =
    lead?.evidence === SAME_CODE_EVIDENCE
      ? ' (same compiled code, not measured)'
      : lead?.evidence === UNEXECUTED_EVIDENCE
        ? ' (changed code not executed, not measured)'
        : '';
  return `no change in ${plural(counts.cells, 'cell')}${unmeasured}`;
}

/** "accepted by @alice: reason" for each distinct acceptance of the cells ('' for none). */
function acceptedText(cells: DecidedCell[]): string {
  const said = [...new Set(cells.map((c) => `accepted by @${c.accepted!.by}: ${c.accepted!.reason}`))];
  return said.join('; ');
}

/** "fail-on: regression" and the workloads that set their own, e.g. "; explore: never". */
function failOnSummary(policy: GatePolicy, cells: DecidedCell[]): string {
  const own = [...new Set(cells.filter((c) => c.policy === 'workload').map((c) => c.workload))].map(
    (w) => `${w}: ${policy.workloads[w]!.failOn}`,
  );
  return `fail-on: ${policy.failOn}${own.length > 0 ? `; ${own.join(', ')}` : ''}`;
}

/**
 * The reasons of undecided cells, grouped by code: said once, with the cells they apply to, so a report
 * need not repeat the same sentence under each cell. (Notes on cells stay with their tables.)
 */
function collectReasons(parts: readonly DecisionPart[]): DecisionReason[] {
  const byCode = new Map<ReasonCode, DecisionReason>();
  for (const part of parts) {
    for (const arm of part.comparison.comparisons) {
      for (const cell of [...arm.cells, ...arm.otherMetricCells]) {
        if (cell.unstable || cell.verdict !== 'inconclusive') continue;
        const name = `${cell.id} ${METRICS[cell.metric].label}`;
        for (const r of cell.reasons) {
          const seen = byCode.get(r.code);
          if (!seen) {
            byCode.set(r.code, {
              code: r.code,
              message: r.message,
              uniform: true,
              cells: [name],
              thresholdPct: cell.thresholdPct,
              better: cell.better,
            });
          } else if (!seen.cells.includes(name)) {
            seen.cells.push(name);
            if (r.message !== seen.message) seen.uniform = false;
          }
        }
      }
    }
  }
  return [...byCode.values()];
}

/** The commit status description: plain text (GitHub shows it as it is), at most STATUS_DESCRIPTION_MAX. */
