import { Command } from 'commander';
import { renderChangePointsText, type ChangePointReport } from '../../history/changepoints-text.js';
import { readSeriesFile } from '../../history/read-series-file.js';
import {
  DEFAULT_MAX_P,
  DEFAULT_MIN_SEGMENT,
  detectChangePoints,
  minPointsForDetection,
} from '../../stats/e-divisive.js';
import { UserError } from '../../util/errors.js';

/**
 * `pgperf changepoints FILE [--json] [--p P] [--min-segment N] [--magnitude PCT] [--log]`: E-Divisive
 * change points (Hunter's t-test variant) of a file holding one number per line, oldest first. Exits 0
 * whatever it finds; 2 on bad input (a line that is not a number, too few values, a bad flag).
 */
export function changepointsCommand(): Command {
  return new Command('changepoints')
    .description('find change points in a series of numbers (one per line, oldest first)')
    .argument('<file>', 'values, one per line, oldest first')
    .option('--p <p>', `significance level of a change point, between 0 and 1 (default ${DEFAULT_MAX_P})`)
    .option(
      '--min-segment <n>',
      `fewest values on either side of a change point (default ${DEFAULT_MIN_SEGMENT})`,
    )
    .option('--magnitude <pct>', 'ignore changes no larger than this, in percent (default 0)')
    .option('--log', 'analyse ln of the values (positive values; gives a CI of each change)')
    .option('--json', 'print the change points as JSON')
    .action(
      async (
        file: string,
        flags: { p?: string; minSegment?: string; magnitude?: string; log?: boolean; json?: boolean },
      ) => {
        const maxP = numberFlag(
          '--p',
          flags.p,
          DEFAULT_MAX_P,
          (v) => v > 0 && v < 1,
          'a number between 0 and 1',
        );
        const minSegment = numberFlag(
          '--min-segment',
          flags.minSegment,
          DEFAULT_MIN_SEGMENT,
          (v) => Number.isInteger(v) && v >= 2,
          'a whole number >= 2',
        );
        const magnitudePct = numberFlag(
          '--magnitude',
          flags.magnitude,
          0,
          (v) => v >= 0,
          'a percentage >= 0 such as 2',
        );
        const series = await readSeriesFile(file);
        const needed = minPointsForDetection(minSegment);
        if (series.values.length < needed) {
          throw new UserError(
            `${file} has ${series.values.length} value${series.values.length === 1 ? '' : 's'}; change-point detection needs at least ${needed} (${minSegment} on each side of a change, --min-segment)`,
          );
        }
        const scale = flags.log ? 'log' : 'linear';
        if (scale === 'log') {
          const bad = series.values.findIndex((v) => v <= 0);
          if (bad >= 0) {
            throw new UserError(
              `${file}:${series.lines[bad]}: ${series.values[bad]} is not positive; --log needs values > 0 (drop --log to analyse them as they are)`,
            );
          }
        }
        const found = detectChangePoints(scale === 'log' ? series.values.map(Math.log) : series.values, {
          maxP,
          minSegment,
          minMagnitude: magnitudePct / 100,
          scale,
        });
        const report: ChangePointReport = {
          file,
          n: series.values.length,
          maxP,
          minSegment,
          magnitudePct,
          scale,
          changePoints: found.map((c) => ({ ...c, line: series.lines[c.index]! })),
        };
        process.stdout.write(
          flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderChangePointsText(report),
        );
      },
    );
}

function numberFlag(
  flag: string,
  raw: string | undefined,
  fallback: number,
  valid: (v: number) => boolean,
  expected: string,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.trim().replace(/%$/, ''));
  if (raw.trim() === '' || !Number.isFinite(value) || !valid(value)) {
    throw new UserError(`${flag} must be ${expected}, got '${raw}'`);
  }
  return value;
}
