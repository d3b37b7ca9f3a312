/**
 * The nightly job, once for `pgperf nightly` and the Action's `mode: nightly`: the plain options both
 * adapters read from their flags or inputs (tonight's head, the workloads, where the commit came from, the
 * change-point settings, the runner canary, the expected gap between nights, the GitHub issues to keep)
 * made into the request and the side effects of the nightly flow (nightly-flow.ts), which it runs. The
 * adapters hand in how a run is measured, the store and the API, then render the outcome (nightlyReport,
 * with the history site where each wants it: publish-site.ts) and gate on it (nightlyDecision).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import type { GitHubApi } from '../../github/api.js';
import type { RunSource } from '../../core/results/result-types.js';
import type { HistoryOptions } from '../../core/history/history-analysis.js';
import { trySyncAlertIssues } from './alert-issues.js';
import { trySyncTriageDigest } from './digest-issue.js';
import { DEFAULT_AUTO_BISECT_PER_WEEK, trySyncRegressionIssues } from './regression-issues.js';
import type { IssueLinks } from '../../core/report/nightly/regression-event.js';
import { OptionError, type OptionNames } from '../compare/options/option-error.js';
import {
  nightlyDecision,
  runNightly,
  type NightlyDeps,
  type NightlyHead,
  type NightlyOutcome,
  type NightlyRequest,
} from './nightly-flow.js';
import { nightlyReport, type NightlyReportOptions } from '../../core/report/nightly/nightly-report.js';

/** The change-point settings of the history analysis, as both adapters take them (magnitude in percent). */
export interface ChangePointOptions {
  maxP?: number;
  minSegment?: number;
  magnitudePct: number;
}

/** The GitHub issues a night keeps: regression events and alerts, and the triage digest when asked. */
export interface NightlyIssues {
  api: GitHubApi;
  /** Also keep the triage digest issue (the open regression issues not yet triaged). */
  triageDigest?: boolean;
  /** With the digest: raise a regression left untriaged this many days again (default: the digest's). */
  raiseAfterDays?: number;
  /**
   * Bisections started without a label in any 7 days, the largest regression first (default
   * DEFAULT_AUTO_BISECT_PER_WEEK; 0: none). Only where the job can bisect (a `bisect` dep).
   */
  autoBisectPerWeek?: number;
}

/** The issue options a check may name, as each adapter spells them. */
export type NightlyIssueOption = 'triageDigest' | 'raiseAfter';

/**
 * The issue options against each other, checked before anything starts: raise-after only shapes the triage
 * digest, so without the digest it would be taken and do nothing.
 * @throws OptionError naming raise-after when the digest is off.
 */
export function checkNightlyIssues(
  issues: Pick<NightlyIssues, 'triageDigest' | 'raiseAfterDays'>,
  names: OptionNames<NightlyIssueOption>,
): void {
  if (issues.raiseAfterDays !== undefined && !issues.triageDigest) {
    throw new OptionError(
      'raiseAfter',
      `${names.raiseAfter} (${issues.raiseAfterDays}) shapes the triage digest: give ${names.triageDigest} too, or remove it`,
    );
  }
}

export interface NightlyJobOptions extends Pick<
  NightlyRequest,
  'workloads' | 'rounds' | 'durationS' | 'runAs' | 'tmpDir' | 'expectEveryHours' | 'backfill'
> {
  /** Tonight's head (nightly-head.ts). */
  head: NightlyHead;
  /** The commit measured and how it was chosen, recorded with the run (a built head's sha is the build's). */
  commit: { ref?: string; sha?: string; chosenBy: string };
  /** The repository the workflow runs in (owner/name), recorded with the run. */
  repository?: string;
  /** The workflow run's page: recorded with the run and linked from the issues. */
  runUrl?: string;
  /** Commits link to <repoUrl>/commit/<sha> in the issues (and the adapters' report). */
  repoUrl?: string;
  changePoints: ChangePointOptions;
  /** A frozen install measured after the head as the runner canary (its own series). */
  canaryBinDir?: string;
  /** Absent: no issues are kept. */
  issues?: NightlyIssues;
}

/**
 * What the job needs done: the logger, the measurement, the builder, the store (`history`), the bisector a
 * night starts without a label, and for a backfill the process runner (git, objdump).
 */
export type NightlyJobDeps = Pick<
  NightlyDeps,
  'logger' | 'measure' | 'build' | 'signal' | 'history' | 'bisect' | 'backfill'
>;

/** The change-point settings of the history analysis (nightly-flow.ts, the history site). */
export function historyOptionsOf(changePoints: ChangePointOptions): HistoryOptions {
  return {
    ...(changePoints.maxP !== undefined ? { maxP: changePoints.maxP } : {}),
    ...(changePoints.minSegment !== undefined ? { minSegment: changePoints.minSegment } : {}),
    minMagnitude: changePoints.magnitudePct / 100,
  };
}

/** Measures tonight's head into the store, analyses the history and keeps the issues (runNightly). */
export async function runNightlyJob(
  options: NightlyJobOptions,
  deps: NightlyJobDeps,
): Promise<NightlyOutcome> {
  const {
    head,
    commit,
    repository,
    runUrl,
    repoUrl,
    changePoints,
    canaryBinDir,
    expectEveryHours,
    issues,
    ...run
  } = options;
  const source: RunSource = {
    ...(repository ? { repository } : {}),
    ...(runUrl ? { runUrl } : {}),
    head: {
      ...(commit.ref ? { ref: commit.ref } : {}),
      ...(commit.sha ? { sha: commit.sha } : {}),
      chosenBy: commit.chosenBy,
    },
  };
  const links: IssueLinks = { ...(repoUrl ? { repoUrl } : {}), ...(runUrl ? { runUrl } : {}) };
  return runNightly(
    {
      ...run,
      head,
      source,
      history: historyOptionsOf(changePoints),
      ...(canaryBinDir ? { canary: { binDir: canaryBinDir } } : {}),
      ...(expectEveryHours !== undefined ? { expectEveryHours } : {}),
    },
    {
      logger: deps.logger,
      measure: deps.measure,
      build: deps.build,
      signal: deps.signal,
      history: deps.history,
      ...(deps.backfill ? { backfill: deps.backfill } : {}),
      ...(issues ? issueSyncs(issues, links, deps) : {}),
      ...(issues && deps.bisect ? { bisect: deps.bisect } : {}),
    },
  );
}

/** The flow's issue steps, with the adapter's API and the night's links. */
function issueSyncs(
  issues: NightlyIssues,
  links: IssueLinks,
  deps: NightlyJobDeps,
): Pick<NightlyDeps, 'issues' | 'alerts' | 'digest'> {
  const { api } = issues;
  const perWeek = issues.autoBisectPerWeek ?? DEFAULT_AUTO_BISECT_PER_WEEK;
  if (perWeek > 0 && !deps.bisect) {
    deps.logger.info(
      'regression issues: no automatic bisection here (nothing to build commits from); the label still asks for one',
    );
  }
  // Nothing is recorded as started where nothing can start it.
  const autoBisectPerWeek = deps.bisect ? perWeek : 0;
  return {
    issues: (analysis, now) => trySyncRegressionIssues(api, analysis, links, { now, autoBisectPerWeek }),
    alerts: (alerts, machines) => trySyncAlertIssues(api, alerts, machines, links),
    ...(issues.triageDigest
      ? {
          digest: (now: Date) =>
            trySyncTriageDigest(api, now, {
              links,
              ...(issues.raiseAfterDays !== undefined ? { raiseAfterDays: issues.raiseAfterDays } : {}),
            }),
        }
      : {}),
  };
}

export interface NightConclusion {
  /** The night's markdown, verdict first (nightlyReport). */
  report: string;
  /** What the night means to the gate (nightlyDecision). */
  decision: GateDecision;
}

/**
 * The night's report (with the adapter's notes: where its history site went), written to `reportFile` when
 * given, and its decision under `failOn`.
 */
export async function concludeNight(
  outcome: NightlyOutcome,
  options: NightlyReportOptions & { failOn: FailOn; reportFile?: string },
): Promise<NightConclusion> {
  const { failOn, reportFile, ...report } = options;
  const decision = nightlyDecision(outcome, failOn);
  const markdown = nightlyReport(outcome, decision, report);
  if (reportFile) {
    await mkdir(path.dirname(reportFile), { recursive: true });
    await writeFile(reportFile, markdown);
  }
  return { report: markdown, decision };
}
