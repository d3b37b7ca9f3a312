import { Command, Option } from 'commander';
import { consolidateShards } from '../../../flows/consolidate/consolidate.js';
import {
  consolidatedReportInput,
  describeMachineClass,
  judgeConsolidation,
} from '../../../flows/consolidate/consolidation.js';
import { decisionLine, renderComparisonText } from '../../../core/report/comparison-text.js';
import { renderConsolidatedComment } from '../../../core/report/consolidated-markdown.js';
import { readResults } from '../../../store/read-results.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { oneOf } from '../options.js';

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
    if (flags.format === 'markdown') {
      process.stdout.write(renderConsolidatedComment(consolidatedReportInput(judged), flags.commentId));
      return;
    }
    if (flags.format === 'json') {
      const classes = judged.classes.map((c) => ({
        fingerprint: c.fingerprint,
        decision: c.decision,
        comparison: c.comparison,
      }));
      process.stdout.write(`${JSON.stringify({ decision: judged.decision, classes }, null, 2)}\n`);
      return;
    }
    const n = judged.classes.length;
    const out: string[] = [
      `${decisionLine(judged.decision)} (${n} machine class${n === 1 ? '' : 'es'}, plan ${judged.planId}, ${judged.count} shards)`,
      '',
    ];
    for (const c of judged.classes) {
      const shards = `shards ${c.present.join(', ')} of ${judged.count}${c.missing.length ? `; MISSING ${c.missing.join(', ')}` : ''}`;
      out.push(`== machine class ${c.fingerprint} (${describeMachineClass(c)}; ${shards})`, '');
      out.push(renderComparisonText(c.comparison, c.decision));
    }
    process.stdout.write(`${out.join('\n')}\n`);
  });
}
