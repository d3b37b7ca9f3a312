import { Command, Option } from 'commander';
import { consolidateShards } from '../../fleet/consolidate.js';
import {
  consolidatedReportInput,
  describeMachineClass,
  judgeConsolidation,
} from '../../pipeline/consolidation.js';
import { renderComparisonText } from '../../report/comparison-text.js';
import { renderConsolidatedComment } from '../../report/consolidated-markdown.js';
import { readResults } from '../../results/read-results.js';
import { oneOf } from '../options.js';

/**
 * `pgperf consolidate RESULTS...`: the shards of one comparison (one results.json per matrix job) as one
 * report: verdict first (over every machine class), then one section per machine class, Holm across all
 * cells of a class. Missing or failed shards are named and leave their cells inconclusive. The markdown is
 * the comment the Action's `mode: consolidate` posts.
 */
export function consolidateCommand(): Command {
  return new Command('consolidate')
    .description('merge the shards of a comparison (run --shard) into one report per machine class')
    .argument('<results.json...>', "the shards' results files")
    .addOption(
      new Option('--format <format>', 'text or markdown')
        .argParser(oneOf('--format', ['text', 'markdown'] as const))
        .default('text'),
    )
    .option('--comment-id <id>', "the markdown's comment id", 'default')
    .action(async (files: string[], flags: { format: 'text' | 'markdown'; commentId: string }) => {
      const docs = [];
      for (const file of files) docs.push({ file, result: await readResults(file) });
      const judged = judgeConsolidation(consolidateShards(docs));
      if (flags.format === 'markdown') {
        const markdown = renderConsolidatedComment(consolidatedReportInput(judged), flags.commentId);
        process.stdout.write(markdown);
        return;
      }
      const n = judged.classes.length;
      const out: string[] = [
        `verdict: ${judged.overall.verdict} over ${n} machine class${n === 1 ? '' : 'es'} (plan ${judged.planId}, ${judged.count} shards)`,
        '',
      ];
      for (const c of judged.classes) {
        const shards = `shards ${c.present.join(', ')} of ${judged.count}${c.missing.length ? `; MISSING ${c.missing.join(', ')}` : ''}`;
        out.push(`== machine class ${c.fingerprint} (${describeMachineClass(c)}; ${shards})`, '');
        out.push(renderComparisonText(c.comparison));
      }
      process.stdout.write(`${out.join('\n')}\n`);
    });
}
