import { Command, Option } from 'commander';
import { consolidateShards } from '../../../flows/consolidate/shard-merge.js';
import {
  consolidatedReportInput,
  judgeConsolidation,
} from '../../../flows/consolidate/consolidated-decision.js';
import {
  renderConsolidationJson,
  renderConsolidationText,
} from '../../../core/report/terminal/consolidated-text.js';
import { renderConsolidatedComment } from '../../../core/report/markdown/consolidated-markdown.js';
import { readResults } from '../../../store/read-results.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { oneOf } from '../flag-parsers.js';

interface ConsolidateFlags extends FailOnFlags {
  format: 'text' | 'markdown' | 'json';
  commentId: string;
}

/**
 * `pgperf consolidate RESULTS...`: the shards of one comparison (one results.json per matrix job) as one
 * report: verdict first (over every machine class), then one section per machine class, Holm across all
 * cells of a class. Missing or failed shards are named and leave their cells inconclusive. The markdown is
 * the comment the Action's `mode: consolidate` posts. Exits like `pgperf run` (see --help): 1 when the
 * gate fails, 3 when a shard is missing or failed.
 */
export function consolidateCommand(): Command {
  const command = new Command('consolidate')
    .description('merge the shards of a comparison (run --shard) into one report per machine class')
    .argument('<results.json...>', "the shards' results files")
    .addOption(
      new Option('--format <format>', 'text, markdown (the comment) or json (the decision and each class)')
        .argParser(oneOf('--format', ['text', 'markdown', 'json'] as const))
        .default('text'),
    )
    .option('--comment-id <id>', "the markdown's comment id", 'default');
  return addFailOnOption(command).action(async (files: string[], flags: ConsolidateFlags) => {
    const docs = [];
    for (const file of files) docs.push({ file, result: await readResults(file) });
    const judged = judgeConsolidation(consolidateShards(docs), flags.failOn);
    process.exitCode = judged.decision.exitCode;
    const render = {
      markdown: () => renderConsolidatedComment(consolidatedReportInput(judged), flags.commentId),
      json: () => renderConsolidationJson(judged),
      text: () => renderConsolidationText(judged),
    }[flags.format];
    process.stdout.write(render());
  });
}
