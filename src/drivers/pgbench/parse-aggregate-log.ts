/**
 * Parser for pgbench aggregate logs (-l --aggregate-interval=N), one line per interval, times in µs.
 *
 *   <= 14:  interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
 *           [sum_lag sum_lag_2 min_lag max_lag            (with -R)
 *            [skipped]]                                   (with -R and -L)          -> 6, 10 or 11 columns
 *   15-18:  all of the above always (zeros when a feature is off), then
 *           retried retries serialization_failures deadlock_failures               -> 15 columns
 *   19+:    15-18 plus other_sql_failures (--continue-on-error)                    -> 16 columns
 *
 * (The docs count the pre-15 forms as "5, 9 and 10" fields after interval_start.) The aggregate log does
 * not say which script ran, and with -j > 1 each thread writes its own file: concatenate or parse each.
 */

export interface AggregateInterval {
  /** Unix epoch seconds at which the interval starts. */
  intervalStart: number;
  /** Transactions completed in the interval (failed ones excluded in 15+). */
  transactions: number;
  latencySumUs: number;
  /** Sum of squared latencies (µs²). */
  latencySum2Us: number;
  latencyMinUs: number;
  latencyMaxUs: number;
  /** Schedule lag (-R); always present (0 without -R) in 15+, only with -R before. */
  lagSumUs?: number;
  lagSum2Us?: number;
  lagMinUs?: number;
  lagMaxUs?: number;
  /** -R with -L (0 otherwise in 15+). */
  skipped?: number;
  /** 15+: transactions retried and total retries (0 when max tries is 1). */
  retried?: number;
  retries?: number;
  /** 15+: failures by kind (0 without --failures-detailed). */
  serializationFailures?: number;
  deadlockFailures?: number;
  /** 19+: failures other than serialization/deadlock (0 without --failures-detailed). */
  otherFailures?: number;
  /** Number of columns on the line: 6, 10 or 11 (<= 14), 15 (15-18), 16 (19+). */
  columns: 6 | 10 | 11 | 15 | 16;
}

const COLUMN_COUNTS = [6, 10, 11, 15, 16] as const;

/** The columns in the order pgbench writes them; the older formats stop after 6, 10 or 11 of them. */
const COLUMNS = [
  'intervalStart',
  'transactions',
  'latencySumUs',
  'latencySum2Us',
  'latencyMinUs',
  'latencyMaxUs',
  'lagSumUs',
  'lagSum2Us',
  'lagMinUs',
  'lagMaxUs',
  'skipped',
  'retried',
  'retries',
  'serializationFailures',
  'deadlockFailures',
  'otherFailures',
] as const satisfies ReadonlyArray<Exclude<keyof AggregateInterval, 'columns'>>;

function isColumnCount(n: number): n is AggregateInterval['columns'] {
  return (COLUMN_COUNTS as readonly number[]).includes(n);
}

/** Parses the text of one aggregate log file. Throws an Error naming the line on a malformed line. */
export function parsePgbenchAggregateLog(text: string): AggregateInterval[] {
  const out: AggregateInterval[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const fields = line.split(/\s+/);
    const where = `pgbench aggregate log line ${i + 1}`;
    if (!isColumnCount(fields.length)) {
      throw new Error(
        `${where}: expected ${COLUMN_COUNTS.join(', ')} columns, got ${fields.length}: "${line}"`,
      );
    }
    const values = fields.map((f, col) => {
      // Integers only: pgbench prints every column with %ld or %.0f.
      if (!/^-?\d+$/.test(f)) throw new Error(`${where}, column ${col + 1}: not an integer: "${f}"`);
      return Number(f);
    });
    // A line of N columns has exactly the first N of COLUMNS, in order.
    const row = Object.fromEntries(values.map((value, col) => [COLUMNS[col]!, value])) as Omit<
      AggregateInterval,
      'columns'
    >;
    out.push({ ...row, columns: fields.length });
  }
  return out;
}
