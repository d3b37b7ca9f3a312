/**
 * A bisection started by a regression issue: the event is the label `pgperf-bisect` being added to an
 * issue of mode nightly, whose pgperf:bisect marker names the series, the change point's commits and the
 * workload; the result (or why nothing was bisected) is commented there. Only issues the token's own
 * login opened and that carry the series marker are trusted (as for the nightly issues and the sticky
 * comment): nobody else's text chooses what is built.
 */
import path from 'node:path';
import { renderNotBisected } from '../../core/report/bisect/bisect-markdown.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { loadWorkloadFile } from '../../drivers/load-workload.js';
import type { Workload } from '../../drivers/workload.js';
import type { GitHubApi } from '../../github/api.js';
import { tolerateApiError } from '../publish/github-post.js';
import { parseBisectMarker, type BisectTarget } from '../../core/history/bisect-marker.js';
import { BISECT_LABEL, seriesMarker } from '../nightly/regression-issues.js';
import type { BisectJob, JobRequest, JobWorkloads } from './bisect-source.js';
import { oneCell } from './one-cell.js';

/** The issue of an `issues` event, as its payload gives it (nothing in it is trusted yet). */
interface IssuePayload {
  number?: unknown;
  body?: unknown;
  user?: { login?: unknown };
  pull_request?: unknown;
}

/** The payload of an `issues` event: what happened, to which label. */
export interface LabelPayload {
  action?: unknown;
  label?: unknown;
}

/** An issues event that is not the bisect label being added is not for this mode (the workflow may listen to all labels). */
export function bisectSkipReason(eventName: string, payload: LabelPayload): string | undefined {
  if (eventName !== 'issues') return undefined;
  const action = payload.action;
  const label = (payload.label as { name?: unknown } | undefined)?.name;
  if (action !== 'labeled' || label !== BISECT_LABEL) {
    return `the issues event is '${String(action)}'${label !== undefined ? ` of label '${String(label)}'` : ''}, not the label '${BISECT_LABEL}' being added`;
  }
  return undefined;
}

/**
 * The job of the labeled issue: its marker's commits and metric, and the series' workload at the series'
 * clients. The inputs base-ref and head-ref are refused: they are for workflow_dispatch.
 */
export async function issueBisectJob(request: JobRequest, api: GitHubApi | undefined): Promise<BisectJob> {
  const trusted = await trustedIssueTarget(request.issue as IssuePayload | undefined, api);
  if (request.good || request.bad) {
    throw new UserError(
      `mode bisect on an issue bisects the issue's commits: remove the inputs 'base-ref'/'head-ref' (they are for workflow_dispatch)`,
    );
  }
  return targetBisectJob(trusted.issue, trusted.target, request.workloads);
}

/**
 * The job of a regression issue's target (its marker, or the one the nightly just wrote when it bisects
 * without a label): the change point's commits and metric, the series' workload at its clients.
 */
export async function targetBisectJob(
  issue: number,
  target: BisectTarget,
  workloads: JobWorkloads,
): Promise<BisectJob> {
  const where = `issue #${issue}`;
  const workload = await issueWorkload(target.workload, workloads, where);
  return {
    good: target.good,
    bad: target.bad,
    names: { good: `${where}'s last good commit`, bad: `${where}'s first bad commit` },
    workload: oneCell(workload, target.clients, `${where}'s clients`),
    metric: target.metric,
    issue,
    target,
    basis:
      `${where} (series ${target.series}): ${target.workload}@${target.clients} ` +
      `${target.metric}, good ${target.good.slice(0, 10)}, bad ${target.bad.slice(0, 10)}`,
  };
}

/**
 * The issue of the event, trusted only when it is an issue (not a PR), opened by the token's own login,
 * and carries the series marker; then its pgperf:bisect marker is what is bisected.
 */
async function trustedIssueTarget(
  issue: IssuePayload | undefined,
  api: GitHubApi | undefined,
): Promise<{ issue: number; target: BisectTarget }> {
  if (!issue || typeof issue.number !== 'number') {
    throw new UserError("mode bisect: the 'issues' event payload names no issue");
  }
  const where = `issue #${issue.number}`;
  if (issue.pull_request !== undefined) {
    throw new UserError(`mode bisect: ${where} is a pull request, not a pgperf regression issue`);
  }
  if (!api) {
    throw new UserError(
      `mode bisect on ${where} checks that pgperf opened it and comments the result: pass 'github-token' (default \${{ github.token }}) with issues: write`,
    );
  }
  let login: string;
  try {
    login = await api.viewerLogin();
  } catch (e) {
    throw new UserError(
      `mode bisect: cannot tell which login the token acts as (${errorMessage(e)}), so ${where} cannot be trusted`,
    );
  }
  const author = typeof issue.user?.login === 'string' ? issue.user.login : '';
  if (author !== login) {
    throw new UserError(
      `mode bisect: ${where} was opened by '${author}', not by '${login}' (the token's login that opens the regression issues); only pgperf's own regression issues are bisected`,
    );
  }
  const body = typeof issue.body === 'string' ? issue.body : '';
  const target = parseBisectMarker(body, where);
  if (!body.includes(seriesMarker(target.series))) {
    throw new UserError(
      `mode bisect: ${where} has no pgperf:series marker for series ${target.series}: it is not a pgperf regression issue`,
    );
  }
  return { issue: issue.number, target };
}

/**
 * The workload of the issue's series: among the input 'workloads' by name when the input is given, else
 * the shipped workload of that name.
 */
async function issueWorkload(name: string, workloads: JobWorkloads, where: string): Promise<Workload> {
  if (workloads.given.length > 0) {
    const loaded = await workloads.load();
    const found = loaded.find((w) => w.name === name);
    if (found) return found;
    throw new UserError(
      `${where} regressed in workload '${name}', which is not among the input 'workloads' (${loaded.map((w) => w.name).join(', ')}): add the file of workload '${name}' to 'workloads'`,
    );
  }
  let file: string;
  try {
    file = workloads.fileOf(name);
  } catch (e) {
    throw new UserError(
      `${where} regressed in workload '${name}', which is not shipped with pgperf: set the input 'workloads' to its file (${errorMessage(e)})`,
    );
  }
  const workload = await loadWorkloadFile(file);
  if (workload.name !== name) {
    throw new UserError(
      `${where} regressed in workload '${name}', but the shipped file ${path.basename(file)} is named '${workload.name}': set the input 'workloads' to the file of '${name}'`,
    );
  }
  return workload;
}

/** Whoever labeled the issue hears there why nothing was bisected (bad commits, a failed build). */
export async function commentNotBisected(
  issue: number,
  error: UserError,
  runUrl: string | undefined,
  deps: { api: GitHubApi; logger: Logger },
): Promise<void> {
  await tolerateApiError(deps.logger, 'issues: write', async () => {
    await deps.api.createComment(issue, renderNotBisected(error.message, runUrl));
  });
}

/** The bisection's markdown, commented on the issue. */
export async function commentBisection(
  issue: number,
  markdown: string,
  deps: { api: GitHubApi; logger: Logger },
): Promise<void> {
  await tolerateApiError(deps.logger, 'issues: write', async () => {
    const posted = await deps.api.createComment(issue, markdown);
    deps.logger.info(`posted the bisection on issue #${issue} (comment ${posted.id})`);
  });
}
