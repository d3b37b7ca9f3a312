/**
 * The time axis of the history charts, as data the page hands to uPlot: the range a chart opens on and,
 * for each span of time, how its ticks are labelled and how far apart uPlot must place them.
 *
 * uPlot chooses the ticks (axis `incrs`, `space`, `splits`) and draws them; what it cannot know is how wide
 * our labels are, and its own defaults fail at both ends of a young history: a single run opens on 1,000
 * days after it (its one-value x range is `86400 / ms` with `ms` = 1e-3), and runs a minute apart get a
 * first label "11/27/26 8:03am" one 15-second tick from "8:04am", which it overlaps. So the range is
 * chosen here, labels are at most two short lines (the tick, and the date or year where that changes),
 * the minimum tick spacing is the widest tick line's width and context lines keep their own distance:
 * neighbouring labels cannot touch.
 *
 * Times are seconds since the epoch (uPlot's default unit) and labels are in UTC, the zone every run
 * date in the site is stored and written in.
 */

export const SECOND = 1;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** uPlot's month and year tick units (30 and 365 days): its splits put such ticks on the 1st of a month. */
export const MONTH = 30 * DAY;
export const YEAR = 365 * DAY;

/**
 * Half the window a single instant is shown in: a day either side, so the axis labels the run's date
 * (and the hours around it) with the point in the middle.
 */
export const SINGLE_INSTANT_HALF_WINDOW = DAY;

/** Space left before the first run and after the last, as a fraction of their span: no point on an edge. */
export const RANGE_PAD_FRACTION = 0.04;

/**
 * The x range a chart opens on: the runs' span widened by RANGE_PAD_FRACTION on each side, or, when all
 * runs share one instant (one run), SINGLE_INSTANT_HALF_WINDOW either side of it. Null without runs.
 *
 * @example timeRange([100, 200]) // [96, 204]
 */
export function timeRange(times: readonly number[]): [number, number] | null {
  const finite = times.filter(Number.isFinite);
  if (finite.length === 0) return null;
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const pad = max > min ? (max - min) * RANGE_PAD_FRACTION : SINGLE_INSTANT_HALF_WINDOW;
  return [min - pad, max + pad];
}

/**
 * The tick increments uPlot may choose from, finest first (seconds). Month and year steps are multiples of
 * uPlot's MONTH and YEAR, which its splits turn into calendar months and years.
 */
// prettier-ignore
export const TIME_INCRS: readonly number[] = [
  1, 2, 5, 10, 15, 30,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR, 6 * HOUR, 8 * HOUR, 12 * HOUR,
  DAY, 2 * DAY, 3 * DAY, 7 * DAY, 14 * DAY,
  MONTH, 2 * MONTH, 3 * MONTH, 4 * MONTH, 6 * MONTH,
  YEAR, 2 * YEAR, 5 * YEAR, 10 * YEAR, 25 * YEAR, 50 * YEAR, 100 * YEAR,
];

/** Font of the time axis' labels; the page draws them in it and LABEL_CHAR_PX is reckoned for it. */
export const AXIS_FONT_PX = 12;
export const AXIS_FONT = `${AXIS_FONT_PX}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;

/**
 * Width allowed per character of a label: 0.7 em, above the average advance of sans-serif digits and
 * letters (about 0.55-0.64 em; DejaVu Sans, Debian's system-ui, has 0.64 em digits), so the estimate errs
 * wide. The browser test measures the real labels.
 */
export const LABEL_CHAR_PX = 0.7 * AXIS_FONT_PX;

/** Clear space between neighbouring labels at the closest ticks uPlot may place. */
export const LABEL_GAP_PX = 12;

/**
 * How the ticks of a visible span are labelled: `main` under every tick, `context` on a second line at
 * the first tick and wherever it changes (the date under times, the year under days and months), both
 * uPlot date templates (uPlot.fmtDate). uPlot picks the increment from `minIncr` up (finer ticks than the
 * labels can tell apart are never used) with at least `space` CSS px between ticks, so main lines never
 * touch; the page drops a context line that would come closer than `contextSpace` to the one before (the
 * first tick's gives way to a change), so context lines never touch either.
 */
export interface TimeAxisLevel {
  /** The widest visible span (seconds) labelled this way; null for the last level (any span). */
  maxSpan: number | null;
  minIncr: number;
  main: string;
  context: string | null;
  /** Minimum distance between ticks (CSS px): the widest main line plus LABEL_GAP_PX. */
  space: number;
  /** Minimum distance between two context lines (CSS px); null without context. */
  contextSpace: number | null;
}

const DATE = '{MMM} {D} {YYYY}';

/** CSS px a label line of `template` needs, with LABEL_GAP_PX to its neighbour. */
export function labelSpace(template: string): number {
  return Math.ceil(templateChars(template) * LABEL_CHAR_PX) + LABEL_GAP_PX;
}

function level(maxSpan: number | null, minIncr: number, main: string, context: string | null): TimeAxisLevel {
  return {
    maxSpan,
    minIncr,
    main,
    context,
    space: labelSpace(main),
    contextSpace: context === null ? null : labelSpace(context),
  };
}

/**
 * The levels, finest first: seconds for up to 5 minutes, times of day up to 2 days (a single run's window),
 * days up to 240 days, months up to 8 years, years beyond. Up to 2 days, ticks stay under a day apart
 * even on the narrowest chart, so the date line is never wanted under every tick.
 */
export const TIME_AXIS_LEVELS: readonly TimeAxisLevel[] = [
  level(5 * MINUTE, SECOND, '{HH}:{mm}:{ss}', DATE),
  level(2 * DAY, MINUTE, '{HH}:{mm}', DATE),
  level(240 * DAY, DAY, '{MMM} {D}', '{YYYY}'),
  level(8 * YEAR, MONTH, '{MMM}', '{YYYY}'),
  level(null, YEAR, '{YYYY}', null),
];

/** The level that labels a visible span (seconds): the first whose maxSpan holds it. */
export function timeAxisLevel(span: number): TimeAxisLevel {
  return TIME_AXIS_LEVELS.find((l) => l.maxSpan === null || span <= l.maxSpan)!;
}

/** Characters a uPlot date template can produce at most ("{MMM} {D}" → 6: "Nov 27"). */
export function templateChars(template: string): number {
  const widest: Record<string, number> = {
    YYYY: 4,
    YY: 2,
    MMM: 3,
    MM: 2,
    M: 2,
    DD: 2,
    D: 2,
    HH: 2,
    H: 2,
    mm: 2,
    ss: 2,
  };
  return template.replace(/\{([A-Za-z]+)\}/g, (_, token: string) =>
    'x'.repeat(widest[token] ?? token.length + 2),
  ).length;
}

/** What the page needs for every chart's time axis (serialised into the page's data). */
export interface TimeAxisData {
  font: string;
  incrs: readonly number[];
  levels: readonly TimeAxisLevel[];
}

export function timeAxisData(): TimeAxisData {
  return { font: AXIS_FONT, incrs: TIME_INCRS, levels: TIME_AXIS_LEVELS };
}
