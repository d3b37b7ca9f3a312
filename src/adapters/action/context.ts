/**
 * What the action knows about the workflow run (from the runner's environment and the event payload),
 * parsed once by the adapter, and the pull request its payload names.
 */
import { UserError, errorMessage } from '../../core/util/errors.js';
import { FileReadError, readRegularFile } from '../../machine/os/regular-file.js';
import {
  chooseCommitsOf,
  type Commits,
  type PullRequestFacts,
} from '../../flows/compare/options/commit-choice.js';
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
export function pullRequestOf(ctx: ActionContext): PullRequestFacts | undefined {
  const pr = ctx.payload.pull_request as Partial<PullRequestFacts> | undefined;
  const missing = [
    typeof pr?.number === 'number' ? '' : 'pull_request.number',
    typeof pr?.head?.sha === 'string' && pr.head.sha ? '' : 'pull_request.head.sha',
    typeof pr?.base?.sha === 'string' && pr.base.sha ? '' : 'pull_request.base.sha',
  ].filter(Boolean);
  if (missing.length === 0) return pr as PullRequestFacts;
  if (!PULL_REQUEST_EVENTS.has(ctx.eventName) && pr === undefined) return undefined;
  const where = ctx.eventPath
    ? `the event payload GITHUB_EVENT_PATH ${ctx.eventPath}`
    : 'the event payload (GITHUB_EVENT_PATH is not set)';
  throw new UserError(
    `the '${ctx.eventName}' event is about a pull request, but ${where} has no ${missing.join(', ')}; expected the payload GitHub writes for a pull request`,
  );
}

/** The commits the event and the inputs choose (src/flows/compare/options/commit-choice.ts), the PR read from the payload. */
export function chooseCommits(
  ctx: ActionContext,
  inputs: ActionInputs,
  api: GitHubApi | undefined,
): Promise<Commits> {
  return chooseCommitsOf({ eventName: ctx.eventName, pullRequest: pullRequestOf(ctx) }, inputs, api);
}

/**
 * The workflow run, from the variables the runner sets and the event payload file. A payload that is
 * missing, unreadable, not a regular file (a FIFO would wait for ever), not JSON or not an object is refused
 * naming GITHUB_EVENT_PATH and the file.
 */
export async function readContext(
  env: NodeJS.ProcessEnv,
  read: (file: string) => Promise<string> = (file) => readRegularFile(file),
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
      if (e instanceof FileReadError && !e.fromOs) {
        throw new UserError(`GITHUB_EVENT_PATH ${eventPath}: ${e.reason} (the JSON file the runner writes)`);
      }
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
