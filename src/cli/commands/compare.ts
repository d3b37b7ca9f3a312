import { Command } from 'commander';
import { compareRun } from '../../compare/compare-run.js';
import { renderComparisonText } from '../../report/comparison-text.js';
import { readResults } from '../../results/read-results.js';

/**
 * `pgperf compare RESULTS.json [--json]`: the statistical comparison of every arm against the first, with
 * per-cell and overall verdicts. Exits 0 whatever the verdict (gating is a separate step); 2 on bad input.
 */
export function compareCommand(): Command {
  return new Command('compare')
    .alias('report')
    .description('compare every arm of a results file against the first: per-cell and overall verdicts')
    .argument('<results.json>', 'a results file written by pgperf run')
    .option('--json', 'print the comparison as JSON instead of a table')
    .action(async (file: string, options: { json?: boolean }) => {
      const comparison = compareRun(await readResults(file));
      process.stdout.write(
        options.json ? `${JSON.stringify(comparison, null, 2)}\n` : renderComparisonText(comparison),
      );
    });
}
