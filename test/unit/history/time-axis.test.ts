/**
 * The time axis decisions of the history charts (src/core/report/history/time-axis.ts): the range a chart opens
 * on, and which labels and tick spacing a span of time gets, for the three histories of issue #29 (one
 * run, runs minutes apart, runs months apart) and as invariants over every level. The templates are
 * formatted by uPlot's own fmtDate, as the page does. The browser test (history-page.int.test.ts) checks
 * the labels uPlot draws with them.
 */
import uPlot from 'uplot';
import { describe, expect, it } from 'vitest';
import {
  DAY,
  LABEL_CHAR_PX,
  LABEL_GAP_PX,
  MINUTE,
  MONTH,
  RANGE_PAD_FRACTION,
  TIME_AXIS_LEVELS,
  TIME_INCRS,
  YEAR,
  labelSpace,
  templateChars,
  timeAxisLevel,
  timeRange,
} from '../../../src/core/report/history/time-axis.js';

/** A run's start in seconds, as the page data holds it. */
const at = (iso: string) => Date.parse(iso) / 1000;
const NOV_27 = at('2026-11-27T08:03:45Z');
/** A template applied to a time as the page applies it: uPlot's formatter, in UTC. */
const format = (template: string, t: number) =>
  uPlot.fmtDate(template)(uPlot.tzDate(new Date(t * 1000), 'Etc/UTC'));
/**
 * The narrowest plot a chart has: the page draws charts at least 360 px wide, less the value axis (80 px)
 * and its label (about 30 px).
 */
const NARROWEST_PLOT_PX = 240;
/** The increment uPlot picks: the finest allowed one whose ticks are at least `space` px apart. */
const uPlotIncrement = (span: number, plotPx: number, space: number, minIncr: number) =>
  TIME_INCRS.find((incr) => incr >= minIncr && (incr / span) * plotPx >= space);

describe('timeRange', () => {
  it('centres a single run in the day either side of it, not 1,000 days after it', () => {
    const [min, max] = timeRange([NOV_27])!;
    expect([min, max]).toEqual([NOV_27 - DAY, NOV_27 + DAY]);
    expect(format('{MMM} {D} {YYYY}', min)).toBe('Nov 26 2026');
    expect(format('{MMM} {D} {YYYY}', max)).toBe('Nov 28 2026');
    // Several runs that share one start are one instant too.
    expect(timeRange([NOV_27, NOV_27])).toEqual([min, max]);
  });

  it('widens the span of several runs by a margin on each side, so no point sits on an edge', () => {
    const minutes = [0, 58, 121, 183, 240, 300].map((s) => NOV_27 + s);
    expect(timeRange(minutes)).toEqual([
      NOV_27 - 300 * RANGE_PAD_FRACTION,
      NOV_27 + 300 + 300 * RANGE_PAD_FRACTION,
    ]);
    const months = [at('2026-01-15T02:00:00Z'), at('2027-03-15T02:00:00Z')];
    const [min, max] = timeRange(months)!;
    expect(format('{YYYY}-{MM}-{DD}', min)).toBe('2025-12-29');
    expect(format('{YYYY}-{MM}-{DD}', max)).toBe('2027-04-01');
  });

  it('has no range without a run, and leaves out dates that did not parse', () => {
    expect(timeRange([])).toBeNull();
    expect(timeRange([Number.NaN])).toBeNull();
    expect(timeRange([Number.NaN, NOV_27])).toEqual([NOV_27 - DAY, NOV_27 + DAY]);
  });
});

describe('timeAxisLevel: the labels of a span', () => {
  it.each([
    // [what, visible span, tick label, second line, the run's labels]
    ['one run (its two-day window)', 2 * DAY, '{HH}:{mm}', '{MMM} {D} {YYYY}', ['08:03', 'Nov 27 2026']],
    [
      'runs a minute apart, 5 minutes and a margin',
      324,
      '{HH}:{mm}',
      '{MMM} {D} {YYYY}',
      ['08:03', 'Nov 27 2026'],
    ],
    ['runs seconds apart', 90, '{HH}:{mm}:{ss}', '{MMM} {D} {YYYY}', ['08:03:45', 'Nov 27 2026']],
    ['40 nightly runs', 41.6 * DAY, '{MMM} {D}', '{YYYY}', ['Nov 27', '2026']],
    ['runs two months apart for a year', 15 * 30 * DAY, '{MMM}', '{YYYY}', ['Nov', '2026']],
    ['ten years of runs', 10.8 * YEAR, '{YYYY}', null, ['2026']],
  ])('%s: %s s → "%s" over "%s"', (_, span, main, context, labels) => {
    const level = timeAxisLevel(span);
    expect([level.main, level.context]).toEqual([main, context]);
    expect([format(main, NOV_27), ...(context ? [format(context, NOV_27)] : [])]).toEqual(labels);
  });

  it('takes the finer level at a boundary', () => {
    for (const [i, level] of TIME_AXIS_LEVELS.entries()) {
      if (level.maxSpan === null) continue;
      expect(timeAxisLevel(level.maxSpan)).toBe(level);
      expect(timeAxisLevel(level.maxSpan + 1)).toBe(TIME_AXIS_LEVELS[i + 1]);
    }
  });
});

describe('the levels', () => {
  it('cover every span, finest first, each labelled finely enough for its finest ticks', () => {
    const spans = TIME_AXIS_LEVELS.map((l) => l.maxSpan);
    expect(spans.at(-1)).toBeNull();
    const bounded = spans.slice(0, -1) as number[];
    expect(bounded).toEqual([...bounded].sort((a, b) => a - b));
    // The smallest unit a level's tick label shows is no coarser than its finest increment, so two ticks
    // never read the same.
    const unit: Array<[RegExp, number]> = [
      [/\{ss\}/, 1],
      [/\{mm\}/, MINUTE],
      [/\{D\}/, DAY],
      [/\{MMM\}/, MONTH],
      [/\{YYYY\}/, YEAR],
    ];
    for (const level of TIME_AXIS_LEVELS) {
      expect(TIME_INCRS).toContain(level.minIncr);
      expect(unit.find(([token]) => token.test(level.main))![1]).toBeLessThanOrEqual(level.minIncr);
    }
  });

  it('space ticks by their widest tick label and keep second lines apart by theirs', () => {
    for (const level of TIME_AXIS_LEVELS) {
      expect(level.space).toBeGreaterThanOrEqual(templateChars(level.main) * LABEL_CHAR_PX + LABEL_GAP_PX);
      if (level.context === null) expect(level.contextSpace).toBeNull();
      else expect(level.contextSpace).toBe(labelSpace(level.context));
    }
    // "08:03" needs 54 px, "Nov 27 2026" 105: sizing the ticks by the date line left 17 minutes of runs
    // on a narrow chart with one label.
    expect(timeAxisLevel(17 * MINUTE).space).toBe(54);
    expect(timeAxisLevel(17 * MINUTE).contextSpace).toBe(105);
    expect(uPlotIncrement(17 * MINUTE, 370, 54, MINUTE)).toBe(5 * MINUTE);
  });

  it('never need the date under every tick, even on the narrowest chart', () => {
    for (const level of TIME_AXIS_LEVELS.filter((l) => l.context?.includes('{D}'))) {
      const incr = uPlotIncrement(level.maxSpan!, NARROWEST_PLOT_PX, level.space, level.minIncr)!;
      expect(incr).toBeLessThan(DAY);
    }
  });

  it("use uPlot's month and year units, which its splits put on calendar months and years", () => {
    for (const incr of TIME_INCRS.filter((i) => i >= MONTH && i < YEAR)) expect(incr % MONTH).toBe(0);
    for (const incr of TIME_INCRS.filter((i) => i >= YEAR)) expect(incr % YEAR).toBe(0);
    expect(TIME_INCRS).toEqual([...TIME_INCRS].sort((a, b) => a - b));
  });
});

describe('templateChars', () => {
  it('counts the widest text a template can produce', () => {
    expect(templateChars('{MMM} {D}')).toBe(6);
    expect(templateChars('{MMM} {D} {YYYY}')).toBe(11);
    expect(templateChars('{HH}:{mm}:{ss}')).toBe(8);
    expect(format('{MMM} {D} {YYYY}', at('2026-12-31T00:00:00Z'))).toHaveLength(11);
  });
});
