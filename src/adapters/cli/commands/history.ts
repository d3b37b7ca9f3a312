import { Command } from 'commander';
import { analyseHistory } from '../../../core/history/history-analysis.js';
import { loadRuns, loadStoredRuns } from '../../../flows/history/load-runs.js';
import { renderHistoryMarkdown } from '../../../core/report/history/history-markdown.js';
import { historySiteData, workloadNames } from '../../../core/report/history/page-data.js';
import { renderHistorySite } from '../../../core/report/history/page-html.js';
import { loadChartAssets } from '../../../flows/history/uplot-assets.js';
import { writeSite } from '../../../flows/history/write-site.js';
import { addChangePointOptions, changePointSettings } from '../change-point-flags.js';
import { UserError } from '../../../core/util/errors.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { checkOutDir } from '../validate.js';

/**
 * `pgperf history --results DIR|FILE... --out DIR [--repo-url URL] [--workload W...]`:
 * analyses the stored runs (change points per fingerprint × workload × clients × metric) and renders a
 * self-contained static site (index.html plus one page per workload). Prints the job-summary markdown
 * on stdout. Exits 0 whatever it finds; 2 on bad input.
 */
export function historyCommand(): Command {
  const command = new Command('history')
    .description('render the performance history of stored runs as a static site with change points')
    .option('--results <paths...>', 'results.json files, directories of them, or a directory store')
    .option('--store <dir|url>', `${STORE_OPTION_HELP}; read when --results is not given`)
    .requiredOption('--out <dir>', 'directory to write the site into (index.html + one page per workload)')
    .option(
      '--repo-url <url>',
      'link commits to <url>/commit/<sha>, e.g. https://github.com/postgres/postgres',
    )
    .option('--workload <name...>', 'only these workloads')
    .option('--title <text>', 'page title', 'pgperf history');
  return addChangePointOptions(command, 'runs').action(
    async (flags: {
      results?: string[];
      store?: string;
      out: string;
      repoUrl?: string;
      workload?: string[];
      title: string;
      p?: string;
      minSegment?: string;
      magnitude?: string;
    }) => {
      const repoUrl = flags.repoUrl === undefined ? undefined : parseRepoUrl(flags.repoUrl);
      const { maxP, minSegment, magnitudePct: magnitude } = changePointSettings(flags);
      await checkOutDir(flags.out, '--out', 'a directory for the history site (created if missing)');
      const logger = consoleLogger();
      let runs;
      let from: string;
      if (flags.results) {
        runs = await loadRuns(flags.results);
        from = flags.results.join(', ');
      } else {
        const store = await openCliStore(flags.store, logger, false);
        try {
          runs = await loadStoredRuns(store, flags.workload);
          from = store.description;
        } finally {
          await store.close();
        }
      }
      const analysis = analyseHistory(runs, { maxP, minSegment, minMagnitude: magnitude / 100 });
      const known = workloadNames(analysis);
      if (known.length === 0) {
        throw new UserError(
          `the ${runs.length} run${runs.length === 1 ? '' : 's'} in ${from} hold no usable measurements (complete runs with TPS or latency samples)`,
        );
      }
      for (const w of flags.workload ?? []) {
        if (!known.includes(w)) {
          throw new UserError(
            `--workload '${w}' is not in the history; its workloads are: ${known.join(', ')}`,
          );
        }
      }
      const site = historySiteData(analysis, { title: flags.title, repoUrl, workloads: flags.workload });
      const files = await writeSite(flags.out, renderHistorySite(site, await loadChartAssets()));
      process.stdout.write(renderHistoryMarkdown(analysis, { repoUrl }));
      process.stderr.write(`pgperf: wrote ${files.length} pages to ${flags.out}\n`);
    },
  );
}

function parseRepoUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(
      `--repo-url must be an http(s) URL such as https://github.com/postgres/postgres, got '${raw}'`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UserError(
      `--repo-url must be an http(s) URL such as https://github.com/postgres/postgres, got '${raw}'`,
    );
  }
  if (url.username || url.password) throw new UserError('--repo-url must not contain credentials');
  return url.toString().replace(/\/+$/, '');
}
