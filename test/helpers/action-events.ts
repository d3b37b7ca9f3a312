/** Event payloads of the GitHub events the action's tests run it on. */

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

/** The inputs that let the action report to GitHub (comment, commit status) and keep its results. */
export const REPORTING_INPUTS: Readonly<Record<string, string>> = {
  comment: 'true',
  'commit-status': 'true',
  'github-token': 'test-token',
  'results-dir': 'pgperf-results',
};
