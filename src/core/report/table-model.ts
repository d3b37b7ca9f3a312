/**
 * The comparison's tables as plain values, built once for every markup (terminal text, markdown, HTML):
 * per head arm and workload, one table per gated metric (the comparison's metric first) with a row per
 * cell (clients, runs, medians, the per-round figure of paired cells, delta and CI, p and Holm-adjusted p,
 * verdict and reason phrase), the cells' notes (one line per kind of note, naming all its client counts)
 * and the throughput curve; per head arm the legend that says what delta is. Verdicts come from the
 * comparison (ArmComparison.workloadVerdicts, each cell's verdict); nothing here decides one. Renderers only
 * format (table-cells.ts).
 */
import type {
  ArmComparison,
  Better,
  CellComparison,
  CurveComparison,
  DeltaInterval,
  NoteCode,
  OverallVerdict,
  PrimaryTest,
  RunComparison,
  Verdict,
} from '../compare/comparison-types.js';
import { METRICS, type MetricName } from '../results/metrics.js';
import { reasonPhrase } from './reasons.js';

export interface ArmTables {
  head: string;
  baseline: string;
  verdict: OverallVerdict;
  /** Ids of the cells that decided the verdict. */
  decidingCells: string[];
  /** Ids of the cells in a collapse region: reported, not gated. */
  unstableCells: string[];
  workloads: WorkloadTables[];
  /** What delta and the per-round figure are, one sentence per kind of test the arm's cells used. */
  legend: string[];
}

export interface WorkloadTables {
  workload: string;
  /** The comparison's verdict for the workload over every metric it gates on. */
  verdict: OverallVerdict;
  thresholdPct: number;
  /** One per metric the workload has cells of, the comparison's metric first. */
  tables: MetricTable[];
  curve: CurveComparison | null;
}

export interface MetricTable {
  metric: MetricName;
  /** True for the comparison's metric (RunComparison.metric), false for the other gated ones. */
  primary: boolean;
  label: string;
  unit: string;
  better: Better;
  /** Decimals the metric's values are shown with. */
  decimals: number;
  /** Some row was tested paired (it has a perRoundPct): the table shows the per-round column. */
  paired: boolean;
  rows: TableRow[];
  /**
   * The rows' notes (and, for the comparison's metric, why a cell is unstable): the notes of one kind said
   * once for all the client counts that have them (groupNotes), in the order they first appear.
   */
  notes: TableNote[];
}

export interface TableRow {
  /** "workload@clients". */
  id: string;
  clients: number;
  /** Usable runs per arm. */
  baseN: number;
  headN: number;
  baseMedian: number | null;
  headMedian: number | null;
  /** The test behind delta (signed-rank: paired rounds; mann-whitney: unpaired runs); null without one. */
  test: PrimaryTest | null;
  /** Rounds with a usable run in both arms, the paired test's n; null when unpaired. */
  pairs: number | null;
  /**
   * Paired cells: the geometric mean of the per-round head/base ratios as a change in percent, the plain
   * figure delta (their Hodges-Lehmann shift) estimates, to read it against; null for unpaired cells.
   */
  perRoundPct: number | null;
  deltaPct: number | null;
  ci95: DeltaInterval | null;
  p: number | null;
  pAdjusted: number | null;
  verdict: Verdict;
  /** Why, in a few words (reasons.ts). */
  reason: string;
  /** In a collapse region of base's curve: reported, left out of the verdict and the gate. */
  unstable: boolean;
}

/** A note of one or more cells of a table: `message` holds every cell's numbers (groupNotes). */
export interface TableNote {
  /** The client counts the note is about, in row order. */
  clients: number[];
  message: string;
}

/**
 * One cell's note before grouping; `code` is the note's NoteCode, 'unstable' for a collapse region (or
 * bistable counts), 'confirmation' for what the confirmation block said of a regressed cell.
 */
export interface CellNote {
  clients: number;
  code: NoteCode | 'unstable' | 'confirmation';
  message: string;
}

/** Every head arm's tables, in the comparison's order. */
export function buildTables(c: RunComparison): ArmTables[] {
  return c.comparisons.map((arm) => armTables(c, arm));
}

function armTables(c: RunComparison, arm: ArmComparison): ArmTables {
  const all = [...arm.cells, ...arm.otherMetricCells];
  const workloads = [...new Set(all.map((cell) => cell.workload))].map((workload): WorkloadTables => {
    const inWorkload = all.filter((cell) => cell.workload === workload);
    return {
      workload,
      verdict: arm.workloadVerdicts[workload] ?? 'inconclusive',
      thresholdPct: inWorkload[0]?.thresholdPct ?? c.thresholdPct,
      tables: c.gatedMetrics.flatMap((metric) => {
        const cells = inWorkload.filter((cell) => cell.metric === metric);
        return cells.length === 0 ? [] : [metricTable(metric, metric === c.metric, cells)];
      }),
      curve: scalingCurve(arm.curves.find((k) => k.workload === workload)),
    };
  });
  return {
    head: arm.head,
    baseline: arm.baseline,
    verdict: arm.verdict,
    decidingCells: arm.decidingCells,
    unstableCells: arm.unstableCells,
    workloads,
    legend: deltaLegend(workloads.flatMap((w) => w.tables.flatMap((t) => t.rows))),
  };
}

function metricTable(metric: MetricName, primary: boolean, cells: CellComparison[]): MetricTable {
  const info = METRICS[metric];
  const rows = cells.map(row);
  return {
    metric,
    primary,
    label: info.label,
    unit: info.unit,
    better: info.better,
    decimals: metricDecimals(metric),
    paired: rows.some((r) => r.perRoundPct !== null),
    rows,
    notes: groupNotes(
      cells.flatMap((cell) => [
        ...cell.notes.map((n) => ({ clients: cell.clients, code: n.code, message: n.message })),
        ...(cell.unstable && (primary || cell.metric === 'instructions')
          ? [{ clients: cell.clients, code: 'unstable' as const, message: cell.unstable.message }]
          : []),
        // The re-measurement behind a regression is said where the regression is.
        ...(cell.confirmation
          ? [{ clients: cell.clients, code: 'confirmation' as const, message: cell.confirmation.message }]
          : []),
      ]),
    ),
  };
}

function row(cell: CellComparison): TableRow {
  return {
    id: cell.id,
    clients: cell.clients,
    baseN: cell.base.n,
    headN: cell.head.n,
    baseMedian: cell.base.median,
    headMedian: cell.head.median,
    test: cell.deltaPct === null ? null : cell.test,
    pairs: cell.deltaPct === null || cell.test !== 'signed-rank' ? null : cell.pairs,
    perRoundPct: perRoundPct(cell),
    deltaPct: cell.deltaPct,
    ci95: cell.ci95,
    p: cell.p,
    pAdjusted: cell.pAdjusted,
    verdict: cell.verdict,
    reason: reasonPhrase(cell),
    unstable: cell.unstable !== undefined,
  };
}

/** Decimals a metric's values are shown with: milliseconds 3, rates 1. */
export function metricDecimals(metric: MetricName): number {
  return METRICS[metric].unit === 'ms' ? 3 : 1;
}

/**
 * The geometric mean of a paired cell's per-round head/base ratios, as a change in percent. It is the mean
 * log-ratio, which the paired t's 95% interval is centred on (mean ± t·SE on the log scale), so the interval's
 * midpoint there gives it exactly. Null for unpaired cells and cells without a test.
 *
 * @example ratios 0.95, 0.97, 0.96 per round -> about -4.0 (%)
 */
export function perRoundPct(cell: Pick<CellComparison, 'test' | 'deltaPct' | 'pairedT'>): number | null {
  if (cell.test !== 'signed-rank' || cell.deltaPct === null || !cell.pairedT) return null;
  const { lowerPct, upperPct } = cell.pairedT.ci95;
  const meanLogRatio = (Math.log1p(lowerPct / 100) + Math.log1p(upperPct / 100)) / 2;
  return Number.isFinite(meanLogRatio) ? 100 * Math.expm1(meanLogRatio) : null;
}

/**
 * What delta and p are, once per kind of test the rows used: for paired rows the Hodges-Lehmann shift of
 * the per-round head/base ratios and the signed-rank test on them, beside the ratios' geometric mean (the
 * per-round column); for unpaired rows the Hodges-Lehmann shift over every pair of a base and a head run and
 * the rank-sum test, which estimate and test the ratio of the medians. When both kinds occur, each sentence
 * names its cells; "@x%" is explained when some interval could not reach 95%.
 */
export function deltaLegend(rows: readonly TableRow[]): string[] {
  const tested = rows.filter((r) => r.test !== null);
  const paired = tested.filter((r) => r.test === 'signed-rank');
  const unpaired = tested.filter((r) => r.test === 'mann-whitney');
  const which = (some: readonly TableRow[]) =>
    paired.length > 0 && unpaired.length > 0 ? ` (${[...new Set(some.map((r) => r.id))].join(', ')})` : '';
  const legend: string[] = [];
  if (paired.length > 0) {
    legend.push(
      `delta${which(paired)}: paired Hodges-Lehmann shift of the per-round head/base ratios, with its 95% CI; ` +
        'p: Wilcoxon signed-rank test on those ratios (Holm-adjusted in parentheses); per-round %: their ' +
        "geometric mean, a plain estimate of the same centre. The medians are each arm's own, unpaired, so " +
        'their ratio can differ from delta.',
    );
  }
  if (unpaired.length > 0) {
    legend.push(
      `delta${which(unpaired)}: unpaired Hodges-Lehmann shift, the median head/base over every pair of a ` +
        'base and a head run, with its 95% CI: an estimate of the ratio of the medians; p: Mann-Whitney ' +
        'rank-sum test (Holm-adjusted in parentheses).',
    );
  }
  if (tested.some((r) => r.ci95 !== null && r.ci95.achievedLevel < r.ci95.level)) {
    legend.push('@x%: the confidence an interval reaches when the runs are too few for 95%.');
  }
  return legend;
}

/**
 * The notes of one table, each kind said once: notes with the same code and the same wording apart from
 * their numbers become one note naming all their client counts. A number that is the same in all of them is
 * written once; one that differs is written as every cell's value with its unit and client count ("a spread
 * of 39.4% at 1 client, 66.4% at 2 clients", not "{39.4, 66.4}%", which said neither), so no cell's number
 * is lost; a number that is each cell's own client count is the list of them. Notes of one code
 * worded differently stay apart. Order: where each note first appears.
 */
export function groupNotes(notes: readonly CellNote[]): TableNote[] {
  const groups = new Map<string, CellNote[]>();
  for (const n of notes) {
    const key = `${n.code}\u0000${numberSlots(n.message).text.join('#')}`;
    groups.set(key, [...(groups.get(key) ?? []), n]);
  }
  return [...groups.values()].map((group) => {
    const clients = [...new Set(group.map((n) => n.clients))];
    const messages = [...new Set(group.map((n) => n.message))];
    if (messages.length === 1) return { clients, message: messages[0]! };
    const split = group.map((n) => numberSlots(n.message));
    const text = [...split[0]!.text];
    let message = text[0]!;
    for (let i = 0; i < text.length - 1; i++) {
      const values = split.map((s) => s.numbers[i]!);
      if (new Set(values).size === 1) message += values[0]!;
      else if (values.every((v, j) => v === String(group[j]!.clients))) message += values.join(', ');
      else {
        // Each value with its unit and its cell: "39.4% at 1 client, 66.4% at 2 clients".
        const unit = text[i + 1]!.startsWith('%') ? '%' : '';
        text[i + 1] = text[i + 1]!.slice(unit.length);
        message += values
          .map((v, j) => `${v}${unit} at ${group[j]!.clients} client${group[j]!.clients === 1 ? '' : 's'}`)
          .join(', ');
      }
      message += text[i + 1]!;
    }
    return { clients, message };
  });
}

/** A signed decimal number, possibly in exponent form ("-3.70", "+1.2", "3.0e-8"). */
const NUMBER = /[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?/g;

/** A message split at its numbers: the text around them (one more part than numbers) and the numbers. */
function numberSlots(message: string): { text: string[]; numbers: string[] } {
  return { text: message.split(NUMBER), numbers: message.match(NUMBER) ?? [] };
}

/**
 * A workload's throughput curve, when it is one: two client counts or more in each arm. A single client
 * count has no curve to summarise ("peak at 1 clients, still scaling, no collapse" says nothing).
 */
function scalingCurve(k: CurveComparison | undefined): CurveComparison | null {
  return k && k.base.points.length > 1 && k.head.points.length > 1 ? k : null;
}
