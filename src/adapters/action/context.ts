/**
 * What the action knows about the workflow run (from the runner's environment and the event payload),
 * parsed once by the adapter, and the choice of base and head commits.
 */
import type { CommitChoice } from '../../flows/compare/commit-choice.js';
import { readFile } from 'node:fs/promises';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { GitHubApi } from '../../github/api.js';
import type { ActionInputs } from './inputs.js';

export interface ActionContext {
  eventName: string;
  /** The event payload (GITHUB_EVENT_PATH). */
  payload: Record<string, unknown>;
  /** GITHUB_EVENT_PATH, the payload's file, for messages; absent when the variable is not set. */
  eventPath?: string;
  owner: string;
  repo: string;
  /** GITHUB_SHA: the commit the workflow runs on. */
  sha: string;
  /** GITHUB_REF_NAME (e.g. master): the branch or tag the workflow runs on, when set. */
  refName?: string;
  serverUrl: string;
  runUrl?: string;
  /** GITHUB_RUN_ID: the same in every job of one workflow run (the default seed of its shards). */
  runId?: string;
  workspace: string;
}

export type { CommitChoice };

export interface Commits {
  base: CommitChoice;
  head: CommitChoice;
  prNumber?: number;
}

interface PullRequestPayload {
  number: number;
  head: { sha: string; ref: string };
  base: { sha: string; ref: string };
}

/** Events whose payload names a pull request in `pull_request`. */
const PULL_REQUEST_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
]);

/**
 * The PR the event names, or undefined for an event about no PR (push, schedule, workflow_run, ...). An
 * event of a pull request whose payload names no usable PR (no event file, or `pull_request` without its
 * number, head sha or base sha) is refused, never taken for an event without a PR.
 * @throws UserError naming the event, GITHUB_EVENT_PATH's file and the missing fields.
 */
export function pullRequestOf(ctx: ActionContext): PullRequestPayload | undefined {
  const pr = ctx.payload.pull_request as Partial<PullRequestPayload> | undefined;
  const missing = [
    typeof pr?.number === 'number' ? '' : 'pull_request.number',
    typeof pr?.head?.sha === 'string' && pr.head.sha ? '' : 'pull_request.head.sha',
    typeof pr?.base?.sha === 'string' && pr.base.sha ? '' : 'pull_request.base.sha',
  ].filter(Boolean);
  if (missing.length === 0) return pr as PullRequestPayload;
  if (!PULL_REQUEST_EVENTS.has(ctx.eventName) && pr === undefined) return undefined;
  const where = ctx.eventPath
    ? `the event payload GITHUB_EVENT_PATH ${ctx.eventPath}`
    : 'the event payload (GITHUB_EVENT_PATH is not set)';
  throw new UserError(
    `the '${ctx.eventName}' event is about a pull request, but ${where} has no ${missing.join(', ')}; expected the payload GitHub writes for a pull request`,
  );
}

/**
 * Pull requests: base = merge-base of the PR head and the base branch, head = the PR head.
 * Other events (push, schedule, workflow_dispatch, /perf comments): the explicit base-ref and head-ref.
 * Inputs always win over the event.
 */
export async function chooseCommits(
  ctx: ActionContext,
  inputs: ActionInputs,
  api: GitHubApi | undefined,
): Promise<Commits> {
  const pr = pullRequestOf(ctx);
  const prNumber = inputs.prNumber ?? pr?.number;
  const explicit = (label: 'base' | 'head', ref: string): CommitChoice => ({
    label,
    ref,
    chosenBy: `input ${label}-ref`,
  });
  if (pr) {
    const head: CommitChoice = inputs.headRef
      ? explicit('head', inputs.headRef)
      : { label: 'head', ref: pr.head.ref, sha: pr.head.sha, chosenBy: `head of PR #${pr.number}` };
    if (inputs.baseRef) return { base: explicit('base', inputs.baseRef), head, prNumber };
    if (!api)
      throw new UserError(
        "choosing the PR's merge-base needs the GitHub API: set 'github-token', or set 'base-ref'",
      );
    let sha: string;
    try {
      sha = await api.mergeBase(pr.base.sha, head.sha ?? pr.head.sha);
    } catch (e) {
      throw new UserError(
        `cannot look up the merge-base of ${pr.base.ref} and the PR head through the GitHub API (${errorMessage(e)}); ` +
          "set the input 'base-ref' to choose the base commit yourself",
      );
    }
    return {
      base: {
        label: 'base',
        ref: pr.base.ref,
        sha,
        chosenBy: `merge-base of ${pr.base.ref} and the PR head`,
      },
      head,
      prNumber,
    };
  }
  if (inputs.baseRef && inputs.headRef) {
    return { base: explicit('base', inputs.baseRef), head: explicit('head', inputs.headRef), prNumber };
  }
  if (inputs.baseBinDir && inputs.headBinDir) {
    const given = (label: 'base' | 'head', dir: string): CommitChoice => ({
      label,
      chosenBy: `input ${label}-bin-dir (${dir})`,
    });
    return { base: given('base', inputs.baseBinDir), head: given('head', inputs.headBinDir), prNumber };
  }
  throw new UserError(
    `the '${ctx.eventName}' event has no pull request: set the inputs 'base-ref' and 'head-ref' (or 'base-bin-dir' and 'head-bin-dir')`,
  );
}

/**
 * The workflow run, from the variables the runner sets and the event payload file. A payload that is
 * missing, unreadable, not JSON or not an object is refused naming GITHUB_EVENT_PATH and the file.
 */
export async function readContext(
  env: NodeJS.ProcessEnv,
  read: (file: string) => Promise<string> = (file) => readFile(file, 'utf8'),
): Promise<ActionContext> {
  const [owner = '', repo = '', ...rest] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo || rest.length > 0) {
    throw new UserError(
      `GITHUB_REPOSITORY must be owner/name, got '${env.GITHUB_REPOSITORY ?? ''}': is this running in GitHub Actions?`,
    );
  }
  let payload: Record<string, unknown> = {};
  const eventPath = env.GITHUB_EVENT_PATH;
  if (eventPath) {
    let text: string;
    try {
      text = await read(eventPath);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UserError(
        `GITHUB_EVENT_PATH ${eventPath}: cannot read the event payload (${code ?? errorMessage(e)}); expected the JSON file the runner writes`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new UserError(
        `GITHUB_EVENT_PATH ${eventPath}: the event payload is not JSON (${errorMessage(e)}); expected the JSON file the runner writes`,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new UserError(
        `GITHUB_EVENT_PATH ${eventPath}: the event payload must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed)}`,
      );
    }
    payload = parsed as Record<string, unknown>;
  }
  const serverUrl = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    ...(eventPath ? { eventPath } : {}),
    owner,
    repo,
    sha: env.GITHUB_SHA ?? '',
    ...(env.GITHUB_REF_NAME ? { refName: env.GITHUB_REF_NAME } : {}),
    serverUrl,
    runUrl: env.GITHUB_RUN_ID ? `${serverUrl}/${owner}/${repo}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
    ...(env.GITHUB_RUN_ID ? { runId: env.GITHUB_RUN_ID } : {}),
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
  };
}
