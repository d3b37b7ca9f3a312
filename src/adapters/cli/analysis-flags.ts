/**
 * The analysis flags shared by `run`, `demo` and `compare` (--alpha, --threshold, --metric): one definition,
 * so every command validates and documents them alike. For `compare`, --metric is also checked against the
 * results file before anything is analysed: a metric its runs never recorded is refused, saying what they hold.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_ALPHA,
  DEFAULT_THRESHOLD_PCT,
  alphaProblem,
  thresholdProblem,
} from '../../core/compare/decision/policy.js';
import {
  METRIC_OPTION_ALIASES,
  METRIC_OPTION_NAMES,
  closestMetricName,
  workloadsLacking,
} from '../../core/compare/metric-option.js';
import {
  METRICS,
  STEADY_METRICS,
  gatedName,
  metricFromName,
  type MetricName,
} from '../../core/results/metrics.js';
import type { AnalysisSettings, RunResult } from '../../core/results/result-types.js';
import {
  DEFAULT_STEADY_PASS,
  parseSteadyPass,
  type SteadyPass,
} from '../../core/compare/evidence/steady-evidence.js';
import { UserError } from '../../core/util/errors.js';

/** "tps, qps, …, p99 (also the keys latencyAvgMs, …)": what --metric accepts, for help and refusals. */
const METRIC_CHOICES_TEXT = `${METRIC_OPTION_NAMES.join(', ')} (also the keys ${METRIC_OPTION_ALIASES.join(', ')})`;

export interface AnalysisFlags {
  alpha?: number;
  threshold?: number;
  metric?: MetricName;
  steadyPass?: SteadyPass;
}

export function addAnalysisOptions(command: Command, when: 'run' | 'compare'): Command {
  const recorded = when === 'compare' ? 'default: as recorded in the results, else ' : 'default ';
  const withOptions = command
    .addOption(
      new Option('--alpha <p>', `family-wise false-alarm rate (${recorded}${DEFAULT_ALPHA})`).argParser(
        parseAlpha,
      ),
    )
    .addOption(
      new Option(
        '--threshold <pct>',
        when === 'compare'
          ? `practical threshold in percent; smaller changes are never regressions; given, it applies to every workload, over a workload's own \`threshold\` (the header says which it set aside) (${recorded}${DEFAULT_THRESHOLD_PCT})`
          : `practical threshold in percent; smaller changes are never regressions; a workload's own \`threshold\` wins (${recorded}${DEFAULT_THRESHOLD_PCT})`,
      ).argParser(parseThreshold),
    )
    .addOption(
      new Option(
        '--metric <name>',
        `one metric that decides the verdict in every cell: ${METRIC_CHOICES_TEXT} (${recorded}each workload's \`metrics\`, default tps)`,
      ).argParser(parseMetric),
    )
    .addOption(
      new Option(
        '--steady-pass <clients>',
        `unchanged instructions per transaction pass a cell the timed metric left undecided (with no sign of a regression) up to this many clients: a count, all, or off (${recorded}${DEFAULT_STEADY_PASS}; needs instruction counts, docs/decision.md)`,
      ).argParser(parseSteadyPassFlag),
    );
  return withOptions;
}

/**
 * Refuses a --metric that some workload of the results never recorded (its successful runs hold no value
 * of it): the message names the metric asked for, what each such workload holds, and how to record it.
 */
export function checkMetricHeld(result: Pick<RunResult, 'samples'>, metric: MetricName): void {
  const lacking = workloadsLacking(result, metric);
  if (lacking.length === 0) return;
  // Workloads that hold the same metrics are named together.
  const byHeld = new Map<string, string[]>();
  for (const w of lacking) {
    const held = w.held.map(gatedName).join(', ') || 'no metric';
    byHeld.set(held, [...(byHeld.get(held) ?? []), w.workload]);
  }
  const holds =
    byHeld.size === 1
      ? [...byHeld.keys()][0]!
      : [...byHeld].map(([held, names]) => `${names.join(', ')}: ${held}`).join('; ');
  throw new UserError(
    `--metric ${gatedName(metric)}: the results hold no ${METRICS[metric].label} values ` +
      `for workload${lacking.length === 1 ? '' : 's'} ${lacking.map((w) => w.workload).join(', ')}; ` +
      `their runs recorded ${holds}. Give --metric one of those${recordHint(metric)}`,
  );
}

/** How a metric gets recorded next time, where a workload can ask for it. */
function recordHint(metric: MetricName): string {
  if (metric === 'latencyP95Ms' || metric === 'latencyP99Ms') {
    const name = gatedName(metric);
    return `, or record ${name}: add it to the workload's metrics field (metrics: [tps, ${name}]) and run again`;
  }
  if (metric === 'qps' || metric === 'latencyPctMs')
    return ' (sysbench workloads record it, pgbench ones do not)';
  if ((STEADY_METRICS as readonly MetricName[]).includes(metric)) {
    return ` (runs record it when the server's counters could be read around them — see the run's warnings; a cost that is 0 in every run, such as buffer reads of a data set that fits in shared_buffers, has nothing to compare)`;
  }
  return '';
}

/** The flags as analysis settings, leaving out what was not given. */
export function analysisFromFlags(flags: AnalysisFlags): Partial<AnalysisSettings> {
  return {
    ...(flags.alpha !== undefined ? { alpha: flags.alpha } : {}),
    ...(flags.threshold !== undefined ? { thresholdPct: flags.threshold } : {}),
    ...(flags.metric !== undefined ? { metric: flags.metric } : {}),
    ...(flags.steadyPass !== undefined ? { steadyPass: flags.steadyPass } : {}),
  };
}

/** The one α and threshold rule (core/compare/decision/policy.ts), which the Action's inputs follow too. */
function parseAlpha(value: string): number {
  const problem = alphaProblem(value);
  if (problem) throw new InvalidArgumentError(`--alpha ${problem}`);
  return Number(value);
}

function parseThreshold(value: string): number {
  const problem = thresholdProblem(value);
  if (problem) throw new InvalidArgumentError(`--threshold ${problem}`);
  return Number(value.replace(/%$/, ''));
}

function parseSteadyPassFlag(value: string): SteadyPass {
  const parsed = parseSteadyPass(value);
  if ('problem' in parsed) throw new InvalidArgumentError(`--steady-pass ${parsed.problem}`);
  return parsed.value;
}

function parseMetric(value: string): MetricName {
  const metric = metricFromName(value);
  if (metric === undefined) {
    const closest = closestMetricName(value);
    throw new InvalidArgumentError(
      `--metric must be one of ${METRIC_CHOICES_TEXT}, got '${value}'${closest ? ` (did you mean ${closest}?)` : ''}`,
    );
  }
  return metric;
}
