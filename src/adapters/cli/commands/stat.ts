import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { compareSamples } from '../../../core/compare/compare-samples.js';
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT } from '../../../core/compare/defaults.js';
import { formatLevel, formatP, formatPct, formatPctInterval } from '../../../core/compare/format.js';
import type { DeltaInterval, SampleComparison } from '../../../core/compare/types.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { numberFlag } from '../change-point-flags.js';

/**
 * `pgperf stat BASE_FILE HEAD_FILE [--alpha A] [--threshold PCT] [--json]`: a ministat-like comparison of
 * two files holding one number per line (blank lines and lines starting with # are skipped). Values that
 * are numbers but unusable (0, negative, NaN, Infinity) are excluded and counted in the result; empty files
 * give an 'inconclusive' verdict with the reason. Exits 0 whatever the verdict; 2 on unreadable input.
 */
export function statCommand(): Command {
  return new Command('stat')
    .description('compare two files of measurements (one number per line), like ministat')
    .argument('<base-file>', 'baseline values, one per line')
    .argument('<head-file>', 'head values, one per line')
    .option('--alpha <a>', `significance level, between 0 and 1 (default ${DEFAULT_ALPHA})`)
    .option('--threshold <pct>', `practical threshold in percent (default ${DEFAULT_THRESHOLD_PCT})`)
    .option('--json', 'print the comparison as JSON')
    .action(
      async (
        baseFile: string,
        headFile: string,
        flags: { alpha?: string; threshold?: string; json?: boolean },
      ) => {
        const alpha = numberFlag(
          '--alpha',
          flags.alpha,
          DEFAULT_ALPHA,
          (v) => v > 0 && v < 1,
          'a number between 0 and 1',
        );
        const thresholdPct = numberFlag(
          '--threshold',
          flags.threshold,
          DEFAULT_THRESHOLD_PCT,
          (v) => v > 0,
          'a positive percentage such as 2',
        );
        const [base, head] = await Promise.all([readValues(baseFile), readValues(headFile)]);
        const result = compareSamples(base, head, { alpha, thresholdPct });
        process.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : renderStat(result, baseFile, headFile),
        );
      },
    );
}

/** One number per line; unparseable lines are user errors naming file and line. */
async function readValues(file: string): Promise<number[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${file}: ${errorMessage(e)}`);
  }
  const values: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const token = line.trim();
    if (token === '' || token.startsWith('#')) return;
    const key = token.toLowerCase();
    const value = Object.hasOwn(NON_FINITE, key) ? NON_FINITE[key]! : Number(token);
    if (Number.isNaN(value) && key !== 'nan') {
      throw new UserError(`${file} line ${i + 1}: '${token}' is not a number; expected one number per line`);
    }
    values.push(value);
  });
  if (values.length === 0) {
    throw new UserError(
      `${file}: no values (empty, or only blank and # lines); expected one number per line`,
    );
  }
  return values;
}

/** Spellings of non-finite values that are accepted (and then excluded as unusable, with a count). */
const NON_FINITE: Record<string, number> = {
  nan: Number.NaN,
  inf: Number.POSITIVE_INFINITY,
  '+inf': Number.POSITIVE_INFINITY,
  '-inf': Number.NEGATIVE_INFINITY,
  infinity: Number.POSITIVE_INFINITY,
  '+infinity': Number.POSITIVE_INFINITY,
  '-infinity': Number.NEGATIVE_INFINITY,
};

function renderStat(r: SampleComparison, baseFile: string, headFile: string): string {
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
