import { Command, Option } from 'commander';
import { overallVerdict } from '../../compare/overall.js';
import { consolidateShards } from '../../fleet/consolidate.js';
import { analyse } from '../../pipeline/analysis.js';
import { reportInputOf } from '../../pipeline/report-input.js';
import { renderComparisonText } from '../../report/comparison-text.js';
import { renderMarkdownReport } from '../../report/markdown.js';
import { readResults } from '../../results/read-results.js';
import { oneOf } from '../options.js';

/**
 * `pgperf consolidate RESULTS...`: the shards of one comparison (one results.json per matrix job) as one
 * report: verdict first (over every machine class), then one section per machine class, Holm across all
 * cells of a class. Missing or failed shards are named and leave their cells inconclusive.
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
      const merged = consolidateShards(docs);
      const sections = merged.classes.map((c) => ({ c, comparison: analyse(c.result) }));
      const overall = overallVerdict(
        sections.map(({ c, comparison }) => ({
          id: c.fingerprint,
          verdict: c.missing.length || c.failed.length ? 'inconclusive' : comparison.verdict,
        })),
      );
      const out: string[] = [
        `${flags.format === 'markdown' ? '## ' : ''}verdict: ${overall.verdict} over ${sections.length} machine class${sections.length === 1 ? '' : 'es'} (plan ${merged.planId}, ${merged.count} shards)`,
        '',
      ];
      for (const { c, comparison } of sections) {
        const what = `${c.facts.cpuModel ?? 'unknown CPU'}, ${c.facts.cpuCount ?? '?'} CPUs`;
        const shards = `shards ${c.present.join(', ')} of ${merged.count}${c.missing.length ? `; MISSING ${c.missing.join(', ')}` : ''}`;
        out.push(
          `${flags.format === 'markdown' ? '### ' : '== '}machine class ${c.fingerprint} (${what}; ${shards})`,
          '',
        );
        out.push(
          flags.format === 'markdown'
            ? renderMarkdownReport({
                ...reportInputOf(c.result, comparison),
                commentId: `${flags.commentId}-${c.fingerprint}`,
              })
            : renderComparisonText(comparison),
        );
      }
      process.stdout.write(`${out.join('\n')}\n`);
    });
}
