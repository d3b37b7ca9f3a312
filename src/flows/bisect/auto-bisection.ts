/**
 * A bisection the nightly starts without a label (flows/nightly/regression-issues.ts plans it within the
 * weekly budget): the regression issue's largest cell between its change point's commits, run in the
 * nightly's own job as mode bisect runs a labeled issue (the target checked against the store, every A/B
 * test saved to it, the result or why nothing was bisected commented on the issue). The adapters hand it
 * to the nightly job as its `bisect` dep; the nightly store stays open for the rest of the night.
 */
import path from 'node:path';
import type { BisectionRequest } from '../../core/report/nightly/regression-event.js';
import {
  announceBisection,
  bisectJobToFiles,
  type JobBisectionOptions,
  type JobBisectionDeps,
} from './bisect-action-job.js';
import type { JobWorkloads } from './bisect-source.js';
import { targetBisectJob } from './issue-bisection.js';

export interface AutoBisectorOptions extends JobBisectionOptions {
  /** Where the workloads of the issues' series are found (the nightly's inputs or flags). */
  workloads: JobWorkloads;
}

export interface AutoBisectorDeps extends Omit<JobBisectionDeps, 'store'> {
  /** The nightly's store: read for the target's check, written with every A/B test, never closed here. */
  store: NonNullable<JobBisectionDeps['store']>;
}

/** What the nightly calls for each bisection it asked for: resolves to one line saying what was found. */
export function autoBisector(
  options: AutoBisectorOptions,
  deps: AutoBisectorDeps,
): (request: BisectionRequest) => Promise<string> {
  const { workloads, ...bisection } = options;
  return async ({ issue, target }) => {
    const job = await targetBisectJob(issue, target, workloads);
    // One directory per issue beside the night's results: bisect.json and report.md of each.
    const outDir = path.join(options.measure.outDir, `bisect-issue-${issue}`);
    const done = await bisectJobToFiles(
      job,
      { ...bisection, measure: { ...options.measure, outDir } },
      { ...deps, store: { ...deps.store, close: async () => {} } },
    );
    await announceBisection(job, done, deps);
    const o = done.report.outcome;
    return o.kind === 'found'
      ? `first bad commit ${o.firstBad.sha.slice(0, 10)} "${o.firstBad.subject}"`
      : `no first bad commit named (${o.kind})`;
  };
}
