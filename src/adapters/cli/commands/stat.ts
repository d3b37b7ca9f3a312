import { Command } from 'commander';
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT } from '../../../core/compare/defaults.js';
import { renderStat } from '../../../core/report/terminal/stat-text.js';
import { compareValueFiles } from '../../../flows/compare/value-files.js';
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
        const result = await compareValueFiles(baseFile, headFile, { alpha, thresholdPct });
        process.stdout.write(
          flags.json ? `${JSON.stringify(result, null, 2)}\n` : renderStat(result, baseFile, headFile),
        );
      },
    );
}
