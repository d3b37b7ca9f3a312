/**
 * The action's mode calibrate saving its run to a data branch, as the data-branch integration tests run it:
 * `store-branch pgperf-data` on pg/postgres.git of the git server at GITHUB_SERVER_URL, the token as
 * github-token, a weekly `schedule` event on commit c × 40, nothing reported to GitHub (the API URL is a
 * closed port).
 */
import { runBuiltAction, type ActionRun, type ActionRunOptions } from './action-run.js';

export interface DataBranchCalibrateOptions extends Pick<
  ActionRunOptions,
  'workspace' | 'source' | 'onStart'
> {
  /** The git server (GITHUB_SERVER_URL) holding the data branch's repository. */
  serverUrl: string;
  /** RUNNER_TEMP: where the data branch's work tree is made. */
  runnerTemp: string;
  /** head-bin-dir. */
  binDir: string;
  /** The workload file (workloads). */
  workload: string;
  /** github-token, which the server takes as the password. */
  token: string;
  /** results-dir. */
  resultsDir: string;
  /** More inputs. */
  inputs?: Record<string, string>;
}

/** Runs mode calibrate with `store-branch pgperf-data`; resolves when the action exits. */
export function calibrateToDataBranch(options: DataBranchCalibrateOptions): Promise<ActionRun> {
  const { workspace, serverUrl, runnerTemp, binDir, workload, token, resultsDir, inputs, ...run } = options;
  return runBuiltAction(
    {
      mode: 'calibrate',
      'head-bin-dir': binDir,
      workloads: workload,
      force: 'true',
      'store-branch': 'pgperf-data',
      'github-token': token,
      comment: 'false',
      'commit-status': 'false',
      'results-dir': resultsDir,
      ...inputs,
    },
    {
      workspace,
      apiUrl: 'http://127.0.0.1:9',
      event: { schedule: '5 3 * * 0' },
      eventName: 'schedule',
      sha: 'c'.repeat(40),
      env: { GITHUB_SERVER_URL: serverUrl, RUNNER_TEMP: runnerTemp },
      ...run,
    },
  );
}
