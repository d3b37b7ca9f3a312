import { Command, Option } from 'commander';
import { analyse } from '../../../core/compare/analysis/recorded-analysis.js';
import { reportInputOf } from '../../../flows/compare/pipeline/report-input.js';
import { renderComparisonText } from '../../../core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../core/report/markdown/markdown.js';
import { renderMailReport } from '../../../core/report/mail/plain-text-mail.js';
import { steadySummary } from '../../../core/compare/evidence/steady-summary.js';
import { readResults } from '../../../store/read-results.js';
import { mergeTwoRuns } from '../../../flows/compare/two-runs.js';
import { twoRunsGateRecord } from '../../../flows/compare/two-runs-gate-record.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { consoleLogger } from '../../../core/util/logger.js';
import {
  addAnalysisOptions,
  analysisFromFlags,
  checkMetricHeld,
  type AnalysisFlags,
} from '../analysis-flags.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { oneOf } from '../flag-parsers.js';

interface CompareFlags extends AnalysisFlags, FailOnFlags {
  format: 'text' | 'markdown' | 'json' | 'mail';
  json?: boolean;
  commentId: string;
  store?: string;
}

/**
 * `pgperf compare RESULTS.json`: the statistical comparison of every arm against the first, per cell and
 * overall, with the analysis settings recorded in the results unless flags override them. `pgperf compare
 * BASE.json HEAD.json`: the base arm of one run against the head arm of another, measured apart (unpaired,
 * said first on stderr and in the warnings; flows/compare/two-runs.ts), with the head run's settings. `--format
 * markdown` prints exactly the PR comment the Action posts for these results; `--format mail` plain text for a
 * reply on a mailing list (72 columns, ASCII; core/report/mail/plain-text-mail.ts); `--format json` the decision,
 * the comparison and the steady per-transaction metrics side by side (steadyMetrics). Exits as the gate
 * decides under --fail-on (0 passed, 1 failed, 2 bad input, 3 the results are incomplete), the same
 * decision the Action's step, status and comment carry.
 */
export function compareCommand(): Command {
  const command = new Command('compare')
    .alias('report')
    .description(
      'compare every arm of a results file against the first: per-cell and overall verdicts; or, given two files, the base arm of the first against the head arm of the second (measured apart: unpaired)',
    )
    .argument('<results.json>', 'a results file written by pgperf run (or the Action)')
    .argument(
      '[head.json]',
      "a second results file: its head arm (or only arm) against the first file's base arm; the two runs were not interleaved, so the test is unpaired and drift between them reads as a change",
    )
    .addOption(
      new Option(
        '--format <format>',
        'text (a table), markdown (the PR comment), json, or mail (plain text for a mailing-list reply, 72 columns)',
      )
        .argParser(oneOf('--format', ['text', 'markdown', 'json', 'mail'] as const))
        .default('text'),
    )
    .option('--json', 'the same as --format json')
    .option(
      '--store <dir|url>',
      `${STORE_OPTION_HELP}; given two files, where the runner's calibrations (its gate record) are read`,
    )
    .option(
      '--comment-id <id>',
      "the comment id of the markdown's hidden marker (the Action's 'comment-id')",
      'default',
    );
  const gated = addFailOnOption(addAnalysisOptions(command, 'compare'));
  return gated.action(async (file: string, headFile: string | undefined, flags: CompareFlags) => {
    const result =
      headFile === undefined ? await readResults(file) : await twoRuns(file, headFile, flags.store);
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
    } else if (format === 'mail') {
      process.stdout.write(renderMailReport(input));
    } else {
      process.stdout.write(
        renderComparisonText(
          comparison,
          input.decision,
          result.baseline,
          steadySummary(result),
          result.clients,
          result.source,
          result.instructions,
        ),
      );
    }
    process.exitCode = input.decision.exitCode;
  });
}

/**
 * The base arm of `baseFile`'s run and the head arm of `headFile`'s, as one document, said on stderr first,
 * with the gate record of the runner that measured both (two-runs-gate-record.ts: the store's, else head's).
 */
async function twoRuns(baseFile: string, headFile: string, storeFlag: string | undefined) {
  const [baseDoc, headDoc] = [await readResults(baseFile), await readResults(headFile)];
  const merged = mergeTwoRuns(baseDoc, headDoc, { base: baseFile, head: headFile });
  const logger = consoleLogger();
  logger.warn(
    `compare: base is ${merged.source!.base!.chosenBy!}, head is ${merged.source!.head!.chosenBy!}: two runs measured apart, not interleaved, so the test is unpaired and drift between them reads as a change (see the warnings)`,
  );
  const store = await openCliStore(storeFlag, logger, false);
  try {
    const gateRecord = await twoRunsGateRecord(baseDoc, headDoc, merged, store, logger);
    return gateRecord ? { ...merged, gateRecord } : merged;
  } finally {
    await store.close();
  }
}
