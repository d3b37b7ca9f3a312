import { Command, Option } from 'commander';
import { analyse } from '../../../flows/compare/analysis.js';
import { reportInputOf } from '../../../flows/compare/report-input.js';
import { renderComparisonText } from '../../../core/report/comparison-text.js';
import { renderMarkdownReport } from '../../../core/report/markdown.js';
import { steadySummary } from '../../../core/compare/steady-summary.js';
import { readResults } from '../../../store/read-results.js';
import {
  addAnalysisOptions,
  analysisFromFlags,
  checkMetricHeld,
  type AnalysisFlags,
} from '../analysis-flags.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { oneOf } from '../options.js';

interface CompareFlags extends AnalysisFlags, FailOnFlags {
  format: 'text' | 'markdown' | 'json';
  json?: boolean;
  commentId: string;
}

/**
 * `pgperf compare RESULTS.json`: the statistical comparison of every arm against the first, per cell and
 * overall, with the analysis settings recorded in the results unless flags override them. `--format
 * markdown` prints exactly the PR comment the Action posts for these results; `--format json` the decision,
 * the comparison and the steady per-transaction metrics side by side (steadyMetrics). Exits as the gate
 * decides under --fail-on (0 passed, 1 failed, 2 bad input, 3 the results are incomplete), the same
 * decision the Action's step, status and comment carry.
 */
export function compareCommand(): Command {
  const command = new Command('compare')
    .alias('report')
    .description('compare every arm of a results file against the first: per-cell and overall verdicts')
    .argument('<results.json>', 'a results file written by pgperf run (or the Action)')
    .addOption(
      new Option('--format <format>', 'text (a table), markdown (the PR comment) or json')
        .argParser(oneOf('--format', ['text', 'markdown', 'json'] as const))
        .default('text'),
    )
    .option('--json', 'the same as --format json')
    .option(
      '--comment-id <id>',
      "the comment id of the markdown's hidden marker (the Action's 'comment-id')",
      'default',
    );
  const gated = addFailOnOption(addAnalysisOptions(command, 'compare'));
  return gated.action(async (file: string, flags: CompareFlags) => {
    const result = await readResults(file);
    // A metric the results never recorded is refused before anything is analysed.
    if (flags.metric !== undefined) checkMetricHeld(result, flags.metric);
    const comparison = analyse(result, analysisFromFlags(flags));
    const input = reportInputOf(result, comparison, { failOn: flags.failOn });
    const format = flags.json ? 'json' : flags.format;
    if (format === 'json') {
      const steadyMetrics = steadySummary(result);
      process.stdout.write(
        `${JSON.stringify({ decision: input.decision, comparison, steadyMetrics }, null, 2)}\n`,
      );
    } else if (format === 'markdown') {
      process.stdout.write(renderMarkdownReport({ ...input, commentId: flags.commentId }));
    } else {
      process.stdout.write(renderComparisonText(comparison, input.decision, result.baseline));
    }
    process.exitCode = input.decision.exitCode;
  });
}
