/**
 * Event payloads of the GitHub events the action's tests run it on, the context runAction gets with them, and
 * the inputs those runs share.
 */
import type { ActionContext } from '../../src/adapters/action/context.js';

export interface PullRequestEventOptions {
  /** The pull request's number. */
  number: number;
  headSha: string;
  headRef: string;
  /** The base branch's commit (default 'c' × 40). */
  baseSha?: string;
  /** The payload's repository.full_name (default 'pg/postgres'; null leaves repository out). */
  repository?: string | null;
}

/** A pull_request `synchronize` event: head pushed to, base `master`. */
export function pullRequestEvent(options: PullRequestEventOptions) {
  const { number, headSha, headRef, baseSha = 'c'.repeat(40), repository = 'pg/postgres' } = options;
  return {
    action: 'synchronize',
    number,
    pull_request: {
      number,
      head: { sha: headSha, ref: headRef },
      base: { sha: baseSha, ref: 'master' },
    },
    ...(repository === null ? {} : { repository: { full_name: repository } }),
  };
}

/** A `schedule` event of the given cron line, as a nightly or weekly workflow receives it. */
export function scheduleEvent(cron: string) {
  return { schedule: cron, repository: { full_name: 'pg/postgres' } };
}

/**
 * The context of a workflow run on `eventName` with `payload`, in pg/postgres on github.com, on commit
 * c × 40, in `workspace`, as runAction gets it; `overrides` replace any of it.
 */
export function actionContext(
  eventName: string,
  payload: Record<string, unknown>,
  workspace: string,
  overrides: Partial<ActionContext> = {},
): ActionContext {
  return {
    eventName,
    payload,
    owner: 'pg',
    repo: 'postgres',
    sha: 'c'.repeat(40),
    serverUrl: 'https://github.com',
    workspace,
    ...overrides,
  };
}

/** The inputs that let the action report to GitHub (comment, commit status) and keep its results. */
export const REPORTING_INPUTS: Readonly<Record<string, string>> = {
  comment: 'true',
  'commit-status': 'true',
  'github-token': 'test-token',
  'results-dir': 'pgperf-results',
};

/**
 * Short runs judged as the end-to-end tests judge them: one-second rounds, alpha 0.05, a 2% threshold,
 * failing on a regression, reporting (REPORTING_INPUTS). Forced: the few rounds these tests run cannot
 * reach significance, and such a plan is refused unless forced.
 */
export const SHORT_RUN_INPUTS: Readonly<Record<string, string>> = {
  force: 'true',
  duration: '1',
  alpha: '0.05',
  threshold: '2',
  'fail-on': 'regression',
  ...REPORTING_INPUTS,
};
