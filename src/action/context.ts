/**
 * What the action knows about the workflow run (from the runner's environment and the event payload),
 * parsed once by the adapter, and the choice of base and head commits.
 */
import { readFile } from 'node:fs/promises';
import { UserError, errorMessage } from '../util/errors.js';
import type { GitHubApi } from '../github/api.js';
import type { ActionInputs } from './inputs.js';

export interface ActionContext {
  eventName: string;
  /** The event payload (GITHUB_EVENT_PATH). */
  payload: Record<string, unknown>;
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

export interface CommitChoice {
  label: 'base' | 'head';
  ref?: string;
  sha?: string;
  /** How the commit was chosen, said in the report. */
  chosenBy: string;
}

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

/** The PR of a pull_request(_target) event, or undefined. */
export function pullRequestOf(ctx: ActionContext): PullRequestPayload | undefined {
  const pr = ctx.payload.pull_request as PullRequestPayload | undefined;
  return pr && typeof pr.number === 'number' && pr.head?.sha && pr.base?.sha ? pr : undefined;
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
