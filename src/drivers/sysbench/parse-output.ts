/**
 * Parses what sysbench 1.0.x prints for `run` (everything goes to stdout): the banner, the per-interval
 * lines of --report-interval, the final report (SQL statistics, General statistics, Latency (ms),
 * Threads fairness) and FATAL messages. Pure; tested on real captures in test/fixtures/sysbench/.
 *
 * ```
 * [ 1s ] thds: 2 tps: 2252.39 qps: 36057.26 (r/w/o: 31550.48/0.00/4506.78) lat (ms,95%): 1.14 err/s: 0.00 reconn/s: 0.00
 * SQL statistics:
 *     queries performed:
 *         read:                            93520
 *     transactions:                        6680   (2221.69 per sec.)
 * Latency (ms):
 *          95th percentile:                        1.76
 * ```
 */

/** One --report-interval line. Rates are per second over the interval. */
export interface SysbenchInterval {
  /** Seconds since the start, at the end of the interval. */
  t: number;
  /** Threads still running (the last interval can show fewer as threads finish). */
  threads: number;
  tps: number;
  qps: number;
  readsPerS: number;
  writesPerS: number;
  otherPerS: number;
  /** The percentile the latency is given at (--percentile). */
  percentile: number;
  latencyPctMs: number;
  /** Ignored errors per second (sysbench prints it as err/s). */
  errorsPerS: number;
  reconnectsPerS: number;
}

export interface SysbenchReport {
  /** True when there is no final report (no transactions line), e.g. after a connection failure. */
  empty: boolean;
  /** "1.0.20" from the banner. */
  version?: string;
  threads?: number;
  /** The --rand-seed the run used; absent when sysbench seeded from the current time. */
  randSeed?: number;
  reads?: number;
  writes?: number;
  other?: number;
  totalQueries?: number;
  transactions?: number;
  tps?: number;
  queries?: number;
  qps?: number;
  ignoredErrors?: number;
  ignoredErrorsPerS?: number;
  reconnects?: number;
  reconnectsPerS?: number;
  totalTimeS?: number;
  events?: number;
  latencyMinMs?: number;
  latencyAvgMs?: number;
  latencyMaxMs?: number;
  /** The percentile of latencyPctMs ("95th percentile:"). */
  percentile?: number;
  latencyPctMs?: number;
  latencySumMs?: number;
  eventsPerThreadAvg?: number;
  eventsPerThreadStddev?: number;
  execTimePerThreadAvgS?: number;
  execTimePerThreadStddevS?: number;
  intervals: SysbenchInterval[];
  /** The latency histogram of --histogram=on (ms, ascending; only non-empty rows are printed). */
  histogram?: HistogramRow[];
  /** FATAL messages, first line of each, in order. */
  fatal: string[];
}

export interface HistogramRow {
  /** The bucket's latency in ms, as printed. */
  value: number;
  count: number;
}

const NUM = String.raw`(\d+(?:\.\d+)?)`;

/**
 * The rows under "Latency histogram (values are in milliseconds)": "       1.082 |*********     17".
 * Undefined when the run had no --histogram.
 */
export function parseSysbenchHistogram(text: string): HistogramRow[] | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.startsWith('Latency histogram'));
  if (start < 0) return undefined;
  const rows: HistogramRow[] = [];
  for (const line of lines.slice(start + 2)) {
    const m = /^\s+(\d+(?:\.\d+)?) \|\**\s+(\d+)$/.exec(line.trimEnd());
    if (!m) break;
    rows.push({ value: Number(m[1]), count: Number(m[2]) });
  }
  return rows;
}
const INTERVAL_RE = new RegExp(
  String.raw`^\[\s*${NUM}s\s*\]\s+thds:\s+(\d+)\s+tps:\s+${NUM}\s+qps:\s+${NUM}\s+` +
    String.raw`\(r/w/o:\s+${NUM}/${NUM}/${NUM}\)\s+lat\s+\(ms,(\d+)%\):\s+${NUM}\s+` +
    String.raw`err/s:\s+${NUM}\s+reconn/s:\s+${NUM}`,
);

/** One interval line, or undefined for any other line. */
export function parseSysbenchInterval(line: string): SysbenchInterval | undefined {
  const m = INTERVAL_RE.exec(line.trim());
  if (!m) return undefined;
  const n = (i: number) => Number(m[i]);
  return {
    t: n(1),
    threads: n(2),
    tps: n(3),
    qps: n(4),
    readsPerS: n(5),
    writesPerS: n(6),
    otherPerS: n(7),
    percentile: n(8),
    latencyPctMs: n(9),
    errorsPerS: n(10),
    reconnectsPerS: n(11),
  };
}

/** "FATAL: ..." lines (first line of each message; continuation lines are indented). */
export function sysbenchFatalMessages(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^FATAL: (.*)$/.exec(line.trimEnd());
    if (m) out.push(m[1]!.trim());
  }
  return out;
}

/**
 * The report's "key: value" lines grouped by section ("SQL statistics", "Latency (ms)", ...); nested
 * headers such as "queries performed:" belong to their section.
 */
function sections(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const header = /^([A-Z][^:]*):$/.exec(line);
    if (header) {
      current = new Map();
      out.set(header[1]!, current);
      continue;
    }
    if (!/^\s/.test(line)) {
      current = undefined;
      continue;
    }
    const kv = /^\s+([^:]+):\s+(\S.*)$/.exec(line);
    if (kv && current) current.set(kv[1]!.trim(), kv[2]!.trim());
  }
  return out;
}

function num(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** "6680   (2221.69 per sec.)" -> [6680, 2221.69] */
function countAndRate(s: string | undefined): [number | undefined, number | undefined] {
  const m = s === undefined ? null : /^(\d+)\s+\((\d+(?:\.\d+)?) per sec\.\)$/.exec(s);
  return m ? [Number(m[1]), Number(m[2])] : [undefined, undefined];
}

/** "3340.0000/730.00" -> [3340, 730] */
function pair(s: string | undefined): [number | undefined, number | undefined] {
  const m = s === undefined ? null : /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(s);
  return m ? [Number(m[1]), Number(m[2])] : [undefined, undefined];
}

/** The numbers of a section's lines, by the report field each one fills: { reads: 'read', ... }. */
function numbersOf<K extends string>(
  section: ReadonlyMap<string, string>,
  lines: Record<K, string>,
): Record<K, number | undefined> {
  const entries = Object.entries(lines) as Array<[K, string]>;
  return Object.fromEntries(entries.map(([field, line]) => [field, num(section.get(line))])) as Record<
    K,
    number | undefined
  >;
}

/** Sets the defined values only, so that absent lines stay absent keys. */
function assignDefined<T extends object>(target: T, values: Partial<T>): void {
  for (const [k, v] of Object.entries(values)) {
    if (v !== undefined) (target as Record<string, unknown>)[k] = v;
  }
}

export function parseSysbenchOutput(text: string): SysbenchReport {
  const report: SysbenchReport = { empty: true, intervals: [], fatal: sysbenchFatalMessages(text) };
  const version = /^sysbench (\S+)/m.exec(text)?.[1];
  const seed = /^Initializing random number generator from seed \((\d+)\)\./m.exec(text)?.[1];
  assignDefined(report, {
    version,
    threads: num(/^Number of threads: (\d+)$/m.exec(text)?.[1]),
    randSeed: num(seed),
  });
  for (const line of text.split(/\r?\n/)) {
    const point = parseSysbenchInterval(line);
    if (point) report.intervals.push(point);
  }

  const s = sections(text);
  const sql = s.get('SQL statistics') ?? new Map<string, string>();
  const general = s.get('General statistics') ?? new Map<string, string>();
  const latency = s.get('Latency (ms)') ?? new Map<string, string>();
  const fairness = s.get('Threads fairness') ?? new Map<string, string>();

  const [transactions, tps] = countAndRate(sql.get('transactions'));
  const [queries, qps] = countAndRate(sql.get('queries'));
  const [ignoredErrors, ignoredErrorsPerS] = countAndRate(sql.get('ignored errors'));
  const [reconnects, reconnectsPerS] = countAndRate(sql.get('reconnects'));
  const [eventsPerThreadAvg, eventsPerThreadStddev] = pair(fairness.get('events (avg/stddev)'));
  const [execTimePerThreadAvgS, execTimePerThreadStddevS] = pair(fairness.get('execution time (avg/stddev)'));
  let percentile: number | undefined;
  let latencyPctMs: number | undefined;
  for (const [key, value] of latency) {
    const m = /^(\d+)(?:st|nd|rd|th) percentile$/.exec(key);
    if (m) {
      percentile = Number(m[1]);
      latencyPctMs = num(value);
    }
  }
  assignDefined(report, {
    ...numbersOf(sql, { reads: 'read', writes: 'write', other: 'other', totalQueries: 'total' }),
    transactions,
    tps,
    queries,
    qps,
    ignoredErrors,
    ignoredErrorsPerS,
    reconnects,
    reconnectsPerS,
    totalTimeS: num(general.get('total time')?.replace(/s$/, '')),
    events: num(general.get('total number of events')),
    ...numbersOf(latency, {
      latencyMinMs: 'min',
      latencyAvgMs: 'avg',
      latencyMaxMs: 'max',
      latencySumMs: 'sum',
    }),
    percentile,
    latencyPctMs,
    eventsPerThreadAvg,
    eventsPerThreadStddev,
    execTimePerThreadAvgS,
    execTimePerThreadStddevS,
  });
  const histogram = parseSysbenchHistogram(text);
  if (histogram) report.histogram = histogram;
  report.empty = report.transactions === undefined;
  return report;
}
