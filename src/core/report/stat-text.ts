/** `pgperf stat`'s text: the verdict first, then each file's sample, the shift, its intervals and the test. */
import { formatLevel, formatP, formatPct, formatPctInterval } from '../compare/format.js';
import type { DeltaInterval, SampleComparison } from '../compare/types.js';

export function renderStat(r: SampleComparison, baseFile: string, headFile: string): string {
  const arm = (name: string, file: string, a: SampleComparison['base']) =>
    `${name}  ${file}: n ${a.n}${a.invalid > 0 ? ` (${a.invalid} excluded)` : ''}, median ${a.median === null ? '-' : a.median}, ` +
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
