/**
 * pgbench's per-transaction log (--log, one file per thread: <prefix>.<pid> and <prefix>.<pid>.<thread>),
 * read line by line into a LatencyHistogram, for the latency percentiles a workload gates on. A line is
 *
 *   client_id transaction_no time script_no time_epoch time_us [schedule_lag [retries]]
 *
 * with `time` the transaction's latency in µs, or `skipped` (--latency-limit with --rate) or `failed` (15+);
 * those count apart and never enter the percentiles, as pgbench's own latency average leaves them out.
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { LatencyHistogram } from '../common/latency-histogram.js';

export interface TransactionLogSummary {
  histogram: LatencyHistogram;
  skipped: number;
  failed: number;
  /** Lines that are none of the above (a truncated last line after a kill). */
  unparsed: number;
  files: number;
}

/** Adds one log line to the summary. */
export function addTransactionLogLine(line: string, into: TransactionLogSummary): void {
  const fields = line.trim().split(' ');
  if (fields.length < 6) {
    if (line.trim() !== '') into.unparsed++;
    return;
  }
  const time = fields[2]!;
  if (time === 'skipped') into.skipped++;
  else if (time === 'failed') into.failed++;
  else if (/^\d+$/.test(time)) into.histogram.addUs(Number(time));
  else into.unparsed++;
}

export function emptySummary(): TransactionLogSummary {
  return { histogram: new LatencyHistogram(), skipped: 0, failed: 0, unparsed: 0, files: 0 };
}

/** Streams every log file in `dir` whose name starts with `prefix.` into one summary. */
export async function readTransactionLogs(dir: string, prefix: string): Promise<TransactionLogSummary> {
  const summary = emptySummary();
  const files = (await readdir(dir)).filter((f) => f.startsWith(`${prefix}.`)).sort();
  for (const file of files) {
    summary.files++;
    const lines = createInterface({ input: createReadStream(path.join(dir, file)), crlfDelay: Infinity });
    for await (const line of lines) addTransactionLogLine(line, summary);
  }
  return summary;
}
