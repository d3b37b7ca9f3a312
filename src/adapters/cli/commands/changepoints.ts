import { Command } from 'commander';
import {
  renderChangePointsText,
  type ChangePointReport,
} from '../../../core/report/history/changepoints-text.js';
import { readSeriesFile } from '../../../flows/history/read-series-file.js';
import { minPointsForDetection } from '../../../core/stats/e-divisive.js';
import { seriesEvents } from '../../../core/history/series-events.js';
import { addChangePointOptions, changePointSettings } from '../change-point-flags.js';
import { UserError } from '../../../core/util/errors.js';

/**
 * `pgperf changepoints FILE [--json] [--p P] [--min-segment N] [--magnitude PCT] [--log]`: the events
 * (step, drift, transient, noisier: src/core/history/series-events.ts) of a file holding one number per
 * line, oldest first, from E-Divisive change points (Hunter's t-test variant). Exits 0
 * whatever it finds; 2 on bad input (a line that is not a number, too few values, a bad flag).
 */
export function changepointsCommand(): Command {
  const command = new Command('changepoints')
    .description(
      'find change points in a series of numbers (one per line, oldest first), each a step, drift, transient or noisier event',
    )
    .argument('<file>', 'values, one per line, oldest first')
    .option('--log', 'analyse ln of the values (positive values; gives a CI of each change)')
    .option('--json', 'print the change points as JSON');
  return addChangePointOptions(command).action(
    async (
      file: string,
      flags: { p?: string; minSegment?: string; magnitude?: string; log?: boolean; json?: boolean },
    ) => {
      const { maxP, minSegment, magnitudePct } = changePointSettings(flags);
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
      const { events, pattern } = seriesEvents(
        scale === 'log' ? series.values.map(Math.log) : series.values,
        { maxP, minSegment, minMagnitude: magnitudePct / 100, scale },
      );
      const found = events.flatMap((e) => e.changePoints);
      const report: ChangePointReport = {
        file,
        n: series.values.length,
        maxP,
        minSegment,
        magnitudePct,
        scale,
        changePoints: found.map((c) => ({ ...c, line: series.lines[c.index]! })),
        events: events.map((e) => ({
          ...e,
          fromLine: series.lines[Math.max(0, e.from)]!,
          toLine: series.lines[e.to]!,
        })),
        period: pattern?.period ?? null,
      };
      process.stdout.write(
        flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderChangePointsText(report),
      );
    },
  );
}
