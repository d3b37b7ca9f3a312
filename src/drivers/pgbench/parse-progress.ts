/**
 * Parser for pgbench's progress lines (-P, written to stderr among other messages).
 *
 *   <= 14: progress: 1.0 s, 8860.3 tps, lat 0.222 ms stddev 0.835[, lag X ms[, N skipped]]
 *   15+:   progress: 1.0 s, 30250.4 tps, lat 0.125 ms stddev 0.102, 0 failed[, lag X ms[, N skipped]]
 *          [, N retried, N retries]
 *
 * With --progress-timestamp the first field is Unix epoch seconds with ms precision ("1795351761.898 s")
 * instead of seconds since the start. The stddev can print as "nan"/"-nan" (rounding under sqrt), which
 * becomes an absent field. Any other stderr line (random seed, vacuum, errors) is ignored.
 */
import type { ProgressPoint } from '../../core/results/result-types.js';

export interface PgbenchProgressPoint extends ProgressPoint {
  /** -R: average schedule lag in the interval. */
  lagMs?: number;
  /** -R with -L: transactions skipped in the interval. */
  skipped?: number;
  /** 15+ with max tries != 1: transactions retried, and retries, in the interval. */
  retried?: number;
  retries?: number;
  /** --progress-timestamp: the printed Unix epoch seconds (t is then derived, see parsePgbenchProgress). */
  epochSeconds?: number;
}

export interface ParseProgressOptions {
  /**
   * Unix epoch seconds at which the run started; with --progress-timestamp lines, t = epoch - start.
   * Without it, t counts from one interval before the first line (the first report comes one -P
   * interval after the start; the interval is the smallest gap between lines, rounded to 0.1 s, or 1 s
   * when there is a single line). Pass it when parsing stderr line by line, or every t comes out as 1.
   */
  startEpochSeconds?: number;
}

const FLOAT = String.raw`(-?(?:\d+(?:\.\d+)?|nan|inf))`;
const PROGRESS_RE = new RegExp(
  String.raw`^progress: (\d+(?:\.\d+)?) s, ${FLOAT} tps, lat ${FLOAT} ms stddev ${FLOAT}` +
    String.raw`(?:, (\d+) failed)?(?:, lag ${FLOAT} ms)?(?:, (\d+) skipped)?(?:, (\d+) retried, (\d+) retries)?$`,
  'i',
);
// pgbench never runs long enough for "seconds since start" to reach this; epoch seconds always do.
const EPOCH_THRESHOLD = 1e8;

function finite(s: string): number | undefined {
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

export function parsePgbenchProgress(
  stderr: string,
  options: ParseProgressOptions = {},
): PgbenchProgressPoint[] {
  const points: PgbenchProgressPoint[] = [];
  for (const raw of stderr.split(/\r?\n/)) {
    const m = PROGRESS_RE.exec(raw.trim());
    if (!m) continue;
    const point: PgbenchProgressPoint = { t: Number(m[1]), tps: finite(m[2]!) ?? 0 };
    const lat = finite(m[3]!);
    if (lat !== undefined) point.latencyAvgMs = lat;
    const sd = finite(m[4]!);
    if (sd !== undefined) point.latencyStddevMs = sd;
    if (m[5] !== undefined) point.failed = Number(m[5]);
    if (m[6] !== undefined) {
      const lag = finite(m[6]);
      if (lag !== undefined) point.lagMs = lag;
    }
    if (m[7] !== undefined) point.skipped = Number(m[7]);
    if (m[8] !== undefined) point.retried = Number(m[8]);
    if (m[9] !== undefined) point.retries = Number(m[9]);
    if (point.t >= EPOCH_THRESHOLD) point.epochSeconds = point.t;
    points.push(point);
  }
  relativiseTimestamps(points, options.startEpochSeconds);
  return points;
}

function relativiseTimestamps(points: PgbenchProgressPoint[], start: number | undefined): void {
  const stamped = points.filter((p) => p.epochSeconds !== undefined);
  const first = stamped[0];
  if (!first) return;
  let origin = start;
  if (origin === undefined) {
    let interval = Infinity;
    for (let i = 1; i < stamped.length; i++) {
      interval = Math.min(interval, stamped[i]!.epochSeconds! - stamped[i - 1]!.epochSeconds!);
    }
    interval = Number.isFinite(interval) ? Math.max(0.1, Math.round(interval * 10) / 10) : 1;
    origin = first.epochSeconds! - interval;
  }
  for (const p of stamped) p.t = Math.round((p.epochSeconds! - origin) * 1000) / 1000;
}
