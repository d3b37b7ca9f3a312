/**
 * `pgperf stat` prints its figures as the files write them (#39 item 8): the median of an even count is
 * the mean of two values, which a double cannot always hold exactly (996.3499999999999), and the text
 * shows it without the float noise; `--json` keeps the number as computed.
 */
import { describe, expect, it } from 'vitest';
import { compareSamples } from '../../../src/core/compare/analysis/compare-samples.js';
import { plainFigure, renderStat } from '../../../src/core/report/terminal/stat-text.js';

describe('pgperf stat text', () => {
  it('prints a median without float noise', () => {
    const r = compareSamples([990, 996.3, 996.4, 1000], [950, 955.1, 955.2, 960]);
    expect(r.base.median).not.toBe(996.35); // what the arithmetic gives: 996.3499999999999
    const text = renderStat(r, 'base.txt', 'head.txt');
    expect(text).toContain('base  base.txt: n 4, median 996.35, CV ');
    expect(text).toContain('head  head.txt: n 4, median 955.15, CV ');
    expect(text).not.toMatch(/\d{10}/);
  });

  it.each([
    [(996.3 + 996.4) / 2, '996.35'],
    [0.1 + 0.2, '0.3'],
    [1000, '1000'],
    [37719.4, '37719.4'],
    [123456.789012, '123456.789012'],
    [1.5e-7, '1.5e-7'],
  ])('plainFigure(%s) is %s', (value, text) => {
    expect(plainFigure(value)).toBe(text);
  });
});
