/**
 * The history site of a night, where each adapter puts it: written to a directory (`pgperf nightly --site`,
 * from tonight's analysis), or published on the data branch of the store (the Action's `publish-site`,
 * rendered from the branch as it is when pushed, so that a conflicting push's runs are in it too).
 */
import type { Logger } from '../../core/util/logger.js';
import type { ResultStore } from '../../store/store.js';
import type { HistoryAnalysis } from '../../core/history/history-analysis.js';
import { historyOptionsOf, type ChangePointOptions } from './nightly-job.js';
import { analyseStore, writeHistorySite } from './nightly-site.js';

/** The site's title: the workflow's repository (owner/name) when there is one. */
export function siteTitle(repository?: string): string {
  return repository ? `pgperf nightly: ${repository}` : 'pgperf nightly';
}

/** Renders tonight's analysis as the history site into `dir`, and says so. */
export async function writeNightlySite(
  dir: string,
  analysis: HistoryAnalysis,
  repoUrl: string | undefined,
  logger: Logger,
): Promise<void> {
  const files = await writeHistorySite(dir, analysis, { title: siteTitle(), repoUrl });
  logger.info(`history site: ${files.length} pages in ${dir}`);
}

/** A store kept on a data branch (the Action's store-setup.ts): fills a directory of it, then pushes. */
export interface SiteBranch {
  publishOnBranch?(
    relative: string,
    write: (dir: string, storeDir: string) => Promise<string>,
  ): Promise<{ commit: string }>;
}

export interface BranchSiteOptions {
  /** The directory of the branch the site goes to. */
  site: string;
  /** The data branch's name (said in the log and the report). */
  branch: string | undefined;
  repository: string;
  repoUrl?: string;
  /** The history analysis's change-point settings, as the night's (nightly-job.ts). */
  changePoints: ChangePointOptions;
}

/**
 * Publishes the history site into `site/` of the data branch; the commit pushed and the report's line
 * about it, or undefined when the store is not on a branch.
 */
export async function publishSiteOnBranch(
  store: SiteBranch,
  options: BranchSiteOptions,
  deps: { logger: Logger; openStore: (dir: string) => Promise<ResultStore> },
): Promise<{ commit: string; note: string } | undefined> {
  if (!store.publishOnBranch) return undefined;
  const { logger } = deps;
  const { site, branch } = options;
  const published = await logger.group('Publishing the history site', () =>
    store.publishOnBranch!(site, async (dir, storeDir) => {
      // Rendered from the branch as it is now (after a conflicting push: with the other job's runs).
      const onBranch = await deps.openStore(storeDir);
      let pages: string[];
      try {
        pages = await writeHistorySite(
          dir,
          await analyseStore(onBranch, historyOptionsOf(options.changePoints)),
          {
            title: siteTitle(options.repository),
            repoUrl: options.repoUrl,
          },
        );
      } finally {
        await onBranch.close();
      }
      logger.info(`history site: ${pages.length} pages in ${site}/ of branch ${branch}`);
      return `pgperf: history site (${pages.length} pages)`;
    }),
  );
  return {
    commit: published.commit,
    note: `History site: \`${site}/\` of branch \`${branch}\` (commit ${published.commit.slice(0, 10)}).`,
  };
}
