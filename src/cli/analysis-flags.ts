/**
 * The analysis flags shared by `run`, `demo` and `compare` (--alpha, --threshold, --metric): one definition,
 * so every command validates and documents them alike.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT } from '../compare/defaults.js';
import { GATED_METRIC_NAMES, METRICS, metricFromName, type MetricName } from '../results/metrics.js';

const METRIC_CHOICES = [...Object.keys(GATED_METRIC_NAMES), ...Object.keys(METRICS)].filter(
  (n, i, all) => all.indexOf(n) === i,
);
import type { AnalysisSettings } from '../results/types.js';

export interface AnalysisFlags {
  alpha?: number;
  threshold?: number;
  metric?: MetricName;
}

export function addAnalysisOptions(command: Command, when: 'run' | 'compare'): Command {
  const recorded = when === 'compare' ? 'default: as recorded in the results, else ' : 'default ';
  return command
    .addOption(
      new Option('--alpha <p>', `family-wise false-alarm rate (${recorded}${DEFAULT_ALPHA})`).argParser(
        parseAlpha,
      ),
    )
    .addOption(
      new Option(
        '--threshold <pct>',
        `practical threshold in percent; smaller changes are never regressions (${recorded}${DEFAULT_THRESHOLD_PCT})`,
      ).argParser(parseThreshold),
    )
    .addOption(
      new Option(
        '--metric <name>',
        `one metric that decides the verdict in every cell: ${METRIC_CHOICES.join(', ')} (${recorded}each workload's \`metrics\`, default tps)`,
      ).argParser(parseMetric),
    );
}

/** The flags as analysis settings, leaving out what was not given. */
export function analysisFromFlags(flags: AnalysisFlags): Partial<AnalysisSettings> {
  return {
    ...(flags.alpha !== undefined ? { alpha: flags.alpha } : {}),
    ...(flags.threshold !== undefined ? { thresholdPct: flags.threshold } : {}),
    ...(flags.metric !== undefined ? { metric: flags.metric } : {}),
  };
}

function parseAlpha(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n < 0.5)) {
    throw new InvalidArgumentError(`--alpha must be a number between 0 and 0.5 (e.g. 0.05), got '${value}'`);
  }
  return n;
}

function parseThreshold(value: string): number {
  const n = Number(value.replace(/%$/, ''));
  if (value.trim() === '' || !(n > 0 && n < 100)) {
    throw new InvalidArgumentError(
      `--threshold must be a percentage between 0 and 100 (e.g. 2), got '${value}'`,
    );
  }
  return n;
}

function parseMetric(value: string): MetricName {
  const metric = metricFromName(value);
  if (metric === undefined) {
    throw new InvalidArgumentError(`--metric must be one of ${METRIC_CHOICES.join(', ')}, got '${value}'`);
  }
  return metric;
}
