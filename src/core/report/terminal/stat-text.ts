/** `pgperf stat`'s text: the verdict first, then each file's sample, the shift, its intervals and the test. */
import { formatLevel, formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import type { DeltaInterval, SampleComparison } from '../../compare/comparison-types.js';

export function renderStat(r: SampleComparison, baseFile: string, headFile: string): string {
  const arm = (name: string, file: string, a: SampleComparison['base']) =>
    `${name}  ${file}: n ${a.n}${a.invalid > 0 ? ` (${a.invalid} excluded)` : ''}, median ${a.median === null ? '-' : plainFigure(a.median)}, ` +
    `CV ${a.cvPct === null ? '-' : `${a.cvPct.toFixed(2)}%`}`;
  const interval = (ci: DeltaInterval | null) =>
    ci === null
      ? '-'
      : `${formatPctInterval(ci.lowerPct, ci.upperPct)} (achieved ${formatLevel(ci.achievedLevel)})`;
  const lines = [
    `verdict: ${r.verdict} (alpha ${formatP(r.alpha)}, threshold ${r.thresholdPct}%)`,
    arm('base', baseFile, r.base),
    arm('head', headFile, r.head),
    `delta  ${r.deltaPct === null ? '-' : formatPct(r.deltaPct)} (Hodges-Lehmann on ln, head vs base)`,
    `95% CI ${interval(r.ci95)}`,
    `90% CI ${interval(r.ci90)}`,
    `p      ${r.p === null ? '-' : `${formatP(r.p)} (Mann-Whitney, ${r.method})`}`,
  ];
  if (r.welch)
    lines.push(
      `welch  t ${r.welch.t.toFixed(3)}, df ${r.welch.df.toFixed(2)}, p ${formatP(r.welch.p)} (diagnostic, on ln)`,
    );
  lines.push(
    ...r.reasons.map((reason) => `reason: ${reason.message}`),
    ...r.notes.map((note) => `note:   ${note.message}`),
  );
  return `${lines.join('\n')}\n`;
}

/** Significant digits a printed median keeps: enough for any measurement, short of a double's float noise. */
const FIGURE_DIGITS = 12;

/**
 * A value as the files would write it, without binary float noise: the median of an even count is the mean
 * of two values, which a double cannot always hold exactly.
 *
 * @example plainFigure((996.3 + 996.4) / 2) === '996.35' // not 996.3499999999999
 */
export function plainFigure(value: number): string {
  return String(Number(value.toPrecision(FIGURE_DIGITS)));
}
