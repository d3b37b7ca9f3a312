/**
 * A regression issue's range attributed before it is bisected (issue #43: "a nightly change point whose
 * commit range holds more than one commit can start an attribution"): when the nightly starts an automatic
 * bisection (flows/bisect/auto-bisection.ts) of a range of two commits or more, and the issue's workload can
 * be counted, the instructions per transaction of the range are attributed first. Counts are steady and
 * cheap (a counted run per commit, about log2 of the range), so when they name commits those are the
 * issue's answer, commented with the waterfall, and no A/B test of timings runs. When they name none, the
 * change is not in the CPU work of a transaction (I/O, waits, contention), and the bisection runs as before.
 */
import path from 'node:path';
import type { BisectionRequest } from '../../core/report/nightly/regression-event.js';
import { renderAttributionMarkdown } from '../../core/report/attribution/attribution-markdown.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { AttributionReport } from '../../core/attribution/attribution-report.js';
import type { GitHubApi } from '../../github/api.js';
import { autoBisector, type AutoBisectorDeps, type AutoBisectorOptions } from '../bisect/auto-bisection.js';
import { targetBisectJob } from '../bisect/issue-bisection.js';
import {
  DEFAULT_MAX_COMMITS,
  attributionRange,
  checkAttributionRequest,
  runAttribution,
  type AttributionDeps,
  type AttributionRequest,
} from './attribution-flow.js';

/** What the nightly calls for each automatic bisection: attributed first where it can be, else bisected. */
export function autoAttributorThenBisector(
  options: AutoBisectorOptions,
  deps: AutoBisectorDeps,
): (request: BisectionRequest) => Promise<string> {
  const bisect = autoBisector(options, deps);
  return async (request) => (await attributeIssueRange(request, options, deps)) ?? bisect(request);
}

/**
 * The issue's range attributed and the result commented, with one line saying what was found; undefined
 * when the range is one commit, its workload cannot be counted, the attribution failed or named nothing
 * (each logged): the bisection decides then.
 */
export async function attributeIssueRange(
  { issue, target }: BisectionRequest,
  options: AutoBisectorOptions,
  deps: Omit<AttributionDeps, 'env'> & { api?: GitHubApi },
): Promise<string | undefined> {
  const { logger } = deps;
  const job = await targetBisectJob(issue, target, options.workloads);
  const { measure } = options;
  const request: AttributionRequest = {
    repo: measure.repo,
    from: job.good,
    to: job.bad,
    cacheDir: measure.cacheDir,
    extraOptions: measure.extraOptions,
    workloads: [job.workload],
    maxCommits: DEFAULT_MAX_COMMITS,
    ...(measure.runAs !== undefined ? { runAs: measure.runAs } : {}),
    ...(measure.tmpDir !== undefined ? { tmpDir: measure.tmpDir } : {}),
    outDir: path.join(measure.outDir, `attribute-issue-${issue}`),
  };
  let report: AttributionReport;
  try {
    checkAttributionRequest(request);
    const commits = await attributionRange(request, deps);
    // One commit: nothing to split; the bisection verifies it on its timings.
    if (commits.length <= 2) return undefined;
    report = await runAttribution(request, deps);
  } catch (e) {
    if (deps.signal?.aborted) throw e;
    logger.info(
      `issue #${issue}: not attributed (${e instanceof UserError ? errorMessage(e) : `the attribution failed: ${errorMessage(e)}`}); bisecting its timings`,
    );
    return undefined;
  }
  if (report.culprits.length === 0) {
    logger.info(
      `issue #${issue}: the attribution named no commit (the instructions per transaction did not move beyond the floor between ${job.good.slice(0, 10)} and ${job.bad.slice(0, 10)}); bisecting its timings`,
    );
    return undefined;
  }
  if (deps.api) {
    const markdown = renderAttributionMarkdown(report, options.links);
    const posted = await deps.api.createComment(issue, markdown).catch((e: unknown) => {
      logger.warn(`issue #${issue}: the attribution could not be commented (${errorMessage(e)})`);
      return undefined;
    });
    if (posted) logger.info(`posted the attribution on issue #${issue} (comment ${posted.id})`);
  }
  const named = report.culprits.map((c) => `${c.sha.slice(0, 10)} "${c.subject}"`).join(', ');
  return `attributed: ${report.culprits.length} commit(s) moved the instructions per transaction: ${named}`;
}
