/**
 * One job of the Action's mode bisect: chosen from the event (the labeled issue, or the inputs), then run
 * to its files: an issue's marker checked against the results store that nightly writes before anything
 * is built, the bisection (every A/B test saved to the store when one is open), its markdown in report.md
 * and the report in bisect.json. A job from an issue hears there why nothing was bisected, or
 * (announceBisection) the result.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AnalysisSettings } from '../../core/results/result-types.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { GitHubApi } from '../../github/api.js';
import type { ResultStore } from '../../store/store.js';
import { resolveAnalysis } from '../../core/compare/analysis/recorded-analysis.js';
import type { RunArchive } from '../compare/pipeline/pipeline.js';
import { REPORT_FILE } from '../publish/publish.js';
import { verifyBisectTarget } from '../nightly/verify-bisect-target.js';
import { rangeBisectJob, type BisectJob, type JobRequest } from './bisect-source.js';
import { renderBisectMarkdown, type BisectLinks } from '../../core/report/bisect/bisect-markdown.js';
import { bisectRequestOf, type BisectMeasure } from './bisect-request.js';
import { commentBisection, commentNotBisected, issueBisectJob } from './issue-bisection.js';
import { runBisection, type BisectDeps } from './bisection.js';
import { type BisectReport } from '../../core/history/bisect-report.js';

export const BISECT_FILE = 'bisect.json';

/** Where a job's bisect.json and report.md go in `dir`. */
export function bisectFilesIn(dir: string): { bisectFile: string; reportFile: string } {
  return { bisectFile: path.join(dir, BISECT_FILE), reportFile: path.join(dir, REPORT_FILE) };
}

export interface JobBisectionOptions {
  /** The analysis settings given (the rest default; the metric is the job's when it names one). */
  analysis: Partial<AnalysisSettings>;
  /** How each commit is built and measured; bisect.json and report.md go to its outDir. */
  measure: BisectMeasure;
  links: BisectLinks;
}

export interface JobBisectionDeps extends Pick<BisectDeps, 'runner' | 'logger' | 'signal' | 'searchPath'> {
  /** Comments on the job's issue (absent: no comments). */
  api?: GitHubApi;
  /** The results store: an issue's marker is checked against it, every A/B test saved to it; closed here. */
  store?: { reader: ResultStore; archive: RunArchive; close(): Promise<void> };
}

export interface JobBisection {
  report: BisectReport;
  markdown: string;
  bisectFile: string;
  reportFile: string;
}

/** The job of the event: the labeled regression issue, or the inputs. */
export function chooseBisectJob(request: JobRequest, api: GitHubApi | undefined): Promise<BisectJob> {
  return request.eventName === 'issues' ? issueBisectJob(request, api) : rangeBisectJob(request);
}

export async function bisectJobToFiles(
  job: BisectJob,
  options: JobBisectionOptions,
  deps: JobBisectionDeps,
): Promise<JobBisection> {
  const { logger, store } = deps;
  let report: BisectReport;
  try {
    if (job.target) {
      const where = `issue #${job.issue}`;
      if (!store) {
        throw new UserError(
          `mode bisect on ${where} checks the issue's commits against the results store that nightly writes: set 'store' or 'store-branch' as the nightly job does`,
        );
      }
      await verifyBisectTarget(job.target, store.reader, where);
    }
    const analysis = resolveAnalysis({
      ...options.analysis,
      ...(job.metric ? { metric: job.metric } : {}),
    });
    const bisectDeps: BisectDeps = {
      runner: deps.runner,
      logger,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.searchPath !== undefined ? { searchPath: deps.searchPath } : {}),
      ...(store ? { archive: store.archive } : {}),
    };
    report = await logger.group('Bisection', () =>
      runBisection(bisectRequestOf(job, analysis, options.measure), bisectDeps),
    );
  } catch (e) {
    if (job.issue !== undefined && deps.api && e instanceof UserError) {
      await commentNotBisected(job.issue, e, options.links.runUrl, { api: deps.api, logger });
    }
    throw e;
  } finally {
    await store?.close();
  }
  const markdown = renderBisectMarkdown(report, options.links);
  const { bisectFile, reportFile } = bisectFilesIn(options.measure.outDir);
  await mkdir(options.measure.outDir, { recursive: true });
  await writeFile(bisectFile, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(reportFile, markdown);
  return { report, markdown, bisectFile, reportFile };
}

/** The outcome logged, and commented on the job's issue when it came from one. */
export async function announceBisection(
  job: BisectJob,
  done: Pick<JobBisection, 'report' | 'markdown'>,
  deps: { logger: Logger; api?: GitHubApi },
): Promise<void> {
  const o = done.report.outcome;
  deps.logger.info(
    o.kind === 'found'
      ? `bisect: first bad commit ${o.firstBad.sha} "${o.firstBad.subject}"`
      : `bisect: no first bad commit named (${o.kind})`,
  );
  if (job.issue !== undefined && deps.api) {
    await commentBisection(job.issue, done.markdown, { api: deps.api, logger: deps.logger });
  }
}
