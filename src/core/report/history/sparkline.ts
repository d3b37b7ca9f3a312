/**
 * A sparkline of a series for the history index: the medians of its latest runs as an inline SVG polyline
 * (static markup, nothing to run or fetch), the latest run as a dot, and the newest change point, when it
 * falls inside, as a red (regression) or green (improvement) tick.
 */

/** Runs a sparkline shows at most: the newest, so a long history still reads at 120 px. */
export const SPARKLINE_RUNS = 60;
export const SPARKLINE_WIDTH = 120;
export const SPARKLINE_HEIGHT = 24;
/** Room above and below the line for the dot, in px. */
const INSET = 3;

export interface Sparkline {
  width: number;
  height: number;
  /** The polyline's `points`, oldest run first; one point for a single run. */
  points: string;
  /** The latest run's dot. */
  last: { x: number; y: number };
  /** x of the first run after the change point, when it is among the runs shown. */
  change: { x: number; kind: 'regression' | 'improvement' } | null;
}

/**
 * Places `values` (oldest first; the last SPARKLINE_RUNS of them) evenly across the width, the smallest at
 * the bottom and the largest at the top; a flat series, or a single run, lies on the middle line.
 * `changeAt` is the index in `values` of the first run after a change point.
 *
 * @example sparkline([1, 2, 3]).points // "3,21 60,12 117,3"
 */
export function sparkline(
  values: readonly number[],
  changeAt: { index: number; kind: 'regression' | 'improvement' } | null = null,
): Sparkline {
  if (values.length === 0) throw new RangeError('a sparkline needs at least one value');
  const skipped = Math.max(0, values.length - SPARKLINE_RUNS);
  const shown = values.slice(skipped);
  const lo = Math.min(...shown);
  const hi = Math.max(...shown);
  const x = (i: number) =>
    shown.length === 1
      ? SPARKLINE_WIDTH / 2
      : INSET + (i * (SPARKLINE_WIDTH - 2 * INSET)) / (shown.length - 1);
  const y = (v: number) =>
    hi === lo ? SPARKLINE_HEIGHT / 2 : INSET + ((hi - v) * (SPARKLINE_HEIGHT - 2 * INSET)) / (hi - lo);
  const round = (v: number) => Math.round(v * 10) / 10;
  const xy = shown.map((v, i) => ({ x: round(x(i)), y: round(y(v)) }));
  const changeIndex = changeAt === null ? -1 : changeAt.index - skipped;
  return {
    width: SPARKLINE_WIDTH,
    height: SPARKLINE_HEIGHT,
    points: xy.map((p) => `${p.x},${p.y}`).join(' '),
    last: xy[xy.length - 1]!,
    change:
      changeAt && changeIndex >= 0 && changeIndex < shown.length
        ? { x: round(x(changeIndex)), kind: changeAt.kind }
        : null,
  };
}
