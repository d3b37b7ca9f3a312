/**
 * The nightly flow, once, for `pgperf nightly` and the Action's `mode: nightly`: tonight's head (an install,
 * or built head-only from source) measured as one arm "head" in random order with the default analysis
 * settings and saved to the results store with the commit it measured; then the whole stored history
 * analysed for change points, judged workload by workload (the open regression events), and the regression
 * issues opened/updated/closed when an API is given. The adapters reach it through the nightly job
 * (nightly-job.ts: their plain options and side effects: how a run is measured, the store, the API, the
 * logger), then render the outcome (core/report/nightly/nightly-report.ts) and gate on it (nightlyDecision).
 */
import type { ComparisonRequest } from '../../postgres/builds/build-pair.js';
import { FAIL_ON_MEANING, type FailOn } from '../../core/compare/decision/policy.js';
import { flowDecision, type GateDecision } from '../../core/compare/decision/flow-decision.js';
import {
  currentChangePoint,
  type HistoryAnalysis,
  type HistoryOptions,
  type SeriesAnalysis,
} from '../../core/history/history-analysis.js';
import { analyseStore } from './nightly-site.js';
import { clientsText } from '../../core/report/nightly/nightly-summary.js';
import { judgeHistory, type NightlyJudgement } from '../../core/history/nightly-judgement.js';
import {
  describeAutoBisect,
  describeSync,
  type BisectionRequest,
  type IssueSync,
} from '../../core/report/nightly/regression-event.js';
import { watchNights, type NightAlert, type NightWatch } from '../../core/history/night-watch.js';
import { errorMessage } from '../../core/util/errors.js';
import type { RunSource } from '../../core/results/result-types.js';
import type { ArmSpec } from '../../run/run-loop.js';
import type { ResultStore } from '../../store/store.js';
import type { Logger } from '../../core/util/logger.js';
import { resolveAnalysis } from '../../core/compare/analysis/recorded-analysis.js';
import type { PipelineDeps, PipelineOutcome, PipelineRequest } from '../compare/pipeline/pipeline.js';
import { runBackfill, type BackfillDeps, type BackfillOutcome } from './backfill.js';

/** Tonight's head: an installed bin directory, or a source tree to build (head only). */
export type NightlyHead =
  { kind: 'installed'; binDir: string } | { kind: 'build'; request: ComparisonRequest };

export interface NightlyRequest extends Pick<
  PipelineRequest,
  'workloads' | 'rounds' | 'durationS' | 'runAs' | 'tmpDir'
> {
  head: NightlyHead;
  /** The run's source; `head.sha` is the built commit's when the head is built. */
  source: RunSource;
  /** Change-point settings of the history analysis. */
  history: HistoryOptions;
  /**
   * The runner canary: a frozen install (a pinned PostgreSQL release) measured after tonight's head with the
   * same workloads, saved as its own series (`source.canary`); its change points mark the same night's
   * regressions suspect (night-watch.ts).
   */
  canary?: { binDir: string };
  /** Hours expected between nightly runs (24 for nightly): a longer gap is a missing-night alert. */
  expectEveryHours?: number;
  /** Measure this many commits before a built head first, oldest first (backfill.ts). */
  backfill?: number;
}

export interface NightlyDeps {
  logger: Logger;
  /**
   * Measures the run and saves it to the store, saying where (CLI: executeRun, with its Ctrl-C handling
   * and run directory; Action: runPipeline in a log group).
   */
  measure(request: Omit<PipelineRequest, 'runDir'>): Promise<PipelineOutcome>;
  /** Builds from source; required when the head is to be built. */
  build?: PipelineDeps['build'];
  /** Runs git and objdump for a backfill (required with `backfill`), and its test seams. */
  backfill?: Pick<BackfillDeps, 'runner' | 'line' | 'compareCode' | 'now'>;
  signal?: AbortSignal;
  /** The store the run is saved to: its whole history is analysed. */
  history: ResultStore;
  /**
   * Opens/updates/closes the regression issues after the analysis (flows/nightly/regression-issues.ts:
   * trySyncRegressionIssues with the adapter's API and links; `now`: when tonight's run started, for the
   * weekly budget of automatic bisections); absent: no issues.
   */
  issues?: (analysis: HistoryAnalysis, now: Date) => Promise<IssueSync>;
  /**
   * Runs a bisection the issues asked for without a label (flows/bisect/auto-bisection.ts), its result
   * commented on the issue; resolves to one line saying what it found. Absent: none is asked for.
   */
  bisect?: (request: BisectionRequest) => Promise<string>;
  /**
   * Opens/updates/closes the alert issue of each machine after the analysis (flows/nightly/alert-issues.ts:
   * trySyncAlertIssues); absent: no alert issues.
   */
  alerts?: (alerts: readonly NightAlert[], machines: readonly string[]) => Promise<IssueSync>;
  /**
   * Updates the triage digest after the regression issues (flows/nightly/digest-issue.ts: trySyncTriageDigest, with
   * `now` the night's run start); absent: no digest.
   */
  digest?: (now: Date) => Promise<IssueSync>;
}

export interface NightlyOutcome {
  run: PipelineOutcome;
  /** The source recorded with the run (with the built commit). */
  source: RunSource;
  /** Why the night adds nothing to the history (the run did not complete); nothing was analysed. */
  incomplete?: string;
  /** Why the run was not saved to the store (the history was analysed without it). */
  notSaved?: string;
  /** The history after tonight's run; absent when incomplete. */
  analysis?: HistoryAnalysis;
  judgement?: NightlyJudgement;
  /** Series tonight's run measured that are still too short to be analysed (undecided). */
  undecided: SeriesAnalysis[];
  /** The regression issues: what was done, or why it could not be (a warning); absent without an API. */
  issues?: IssueSync;
  /** The bisections started without a label tonight, each with what it found or why it stopped. */
  bisections?: { issue: number; series: string; result: string }[];
  /** The runner canary's run, when one was measured (its own series; absent without a canary). */
  canary?: PipelineOutcome;
  /** What the history says about the runner: canary shifts, suspect regressions, missing nights. */
  watch?: NightWatch;
  /** The alert issues: what was done, or why it could not be; absent without an API. */
  alertIssues?: IssueSync;
  /** The triage digest: what was done, or why it could not be; absent when not asked for. */
  digest?: IssueSync;
  /** The commits backfilled before the head, when asked. */
  backfill?: BackfillOutcome;
}

/** The request of tonight's run: one arm "head", random order, the default analysis settings. */
function nightlyRunRequest(
  head: ArmSpec,
  options: Pick<NightlyRequest, 'workloads' | 'rounds' | 'durationS' | 'runAs' | 'tmpDir' | 'source'>,
): Omit<PipelineRequest, 'runDir'> {
  return {
    ...options,
    arms: { kind: 'installed', arms: [{ ...head, label: 'head' }] },
    analysis: resolveAnalysis(),
    order: 'random',
    dataChecksums: false,
  };
}

/** Measures tonight's head into the store, analyses the history and keeps the regression issues current. */
export async function runNightly(request: NightlyRequest, deps: NightlyDeps): Promise<NightlyOutcome> {
  const { logger } = deps;
  const { head: _head, history: _history, source: given, backfill: count, ...run } = request;
  const backfill = count ? await backfillBefore(request, count, deps) : undefined;
  if (backfill?.stopped) {
    return {
      run: backfill.stopped,
      source: backfill.stopped.result.source ?? given,
      incomplete: `the backfill stopped ('${backfill.stopped.result.status}'): the ${backfill.measured.length} commit(s) measured before are stored; tonight's head was not measured`,
      undecided: [],
      backfill,
    };
  }
  const arm = await headArm(request.head, deps);
  const source: RunSource = {
    ...given,
    head: { ...given.head, ...(arm.build ? { sha: arm.build.sha } : {}) },
  };
  const measured = await deps.measure(nightlyRunRequest(arm, { ...run, source }));
  if (measured.result.status !== 'complete') {
    const why = measured.result.stopReason ? ` (${measured.result.stopReason})` : '';
    return {
      run: measured,
      source,
      incomplete: `the nightly run is '${measured.result.status}'${why}: nothing was added to the history`,
      undecided: [],
    };
  }
  const canary = request.canary ? await measureCanary(request.canary, run, source, deps) : undefined;
  const analysis = await analyseStore(deps.history, request.history);
  const watch = watchNights(analysis, {
    now: new Date(measured.result.startedAt),
    ...(request.expectEveryHours !== undefined ? { expectEveryHours: request.expectEveryHours } : {}),
  });
  markSuspects(analysis, watch);
  const judgement = judgeHistory(analysis);
  const savedAs = measured.archived?.id;
  const outcome: NightlyOutcome = {
    run: measured,
    source,
    ...(savedAs ? {} : { notSaved: measured.archiveError ?? 'the store did not save it' }),
    analysis,
    judgement,
    undecided: judgement.unanalysed.filter((s) => s.series.points.some((p) => p.runId === savedAs)),
    ...(canary ? { canary } : {}),
    watch,
    ...(backfill ? { backfill } : {}),
  };
  for (const alert of watch.alerts) logger.warn(`alert: ${alert.message}`);
  if (deps.alerts) {
    const machines = [...new Set(analysis.series.map((s) => s.series.key.fingerprint))];
    outcome.alertIssues = await deps.alerts(watch.alerts, machines);
    if ('error' in outcome.alertIssues) logger.warn(outcome.alertIssues.error);
    else logger.info(`alert issues: ${describeSync(outcome.alertIssues.done)}`);
  }
  for (const [series, why] of watch.suspect) logger.warn(`${series}: ${why}`);
  if (deps.issues) {
    outcome.issues = await deps.issues(analysis, new Date(measured.result.startedAt));
    if ('error' in outcome.issues) {
      logger.warn(`${outcome.issues.error} The run is saved and reported all the same.`);
    } else {
      logger.info(`regression issues: ${describeSync(outcome.issues.done)}`);
      for (const line of describeAutoBisect(outcome.issues.done)) logger.info(line);
      const requests = outcome.issues.done.bisections ?? [];
      if (requests.length > 0 && deps.bisect) outcome.bisections = await autoBisect(requests, deps);
    }
  }
  // The digest lists the open regression issues, so it comes after tonight's are opened and closed: before
  // them a regression found tonight would reach the digest a night late.
  if (deps.digest) {
    outcome.digest = await deps.digest(new Date(measured.result.startedAt));
    if ('error' in outcome.digest) logger.warn(outcome.digest.error);
    else logger.info(`triage digest: ${describeSync(outcome.digest.done)}`);
  }
  // The night's verdict is its decision's (nightlyDecision), said once by the adapter on every surface.
  logger.info(`history analysed: ${analysis.series.length} series over ${analysis.runs} runs`);
  return outcome;
}

/**
 * The bisections the issues asked for, one after the other; one that fails is said (and commented on its
 * issue by the bisector) and the night goes on.
 */
async function autoBisect(
  requests: readonly BisectionRequest[],
  deps: Pick<NightlyDeps, 'bisect' | 'logger'>,
): Promise<NonNullable<NightlyOutcome['bisections']>> {
  const done: NonNullable<NightlyOutcome['bisections']> = [];
  for (const r of requests) {
    deps.logger.info(`issue #${r.issue}: bisecting ${r.target.series} without a label (weekly budget)`);
    let result: string;
    try {
      result = await deps.bisect!(r);
    } catch (e) {
      result = `not bisected: ${errorMessage(e)}`;
      deps.logger.warn(`issue #${r.issue}: the automatic bisection stopped: ${errorMessage(e)}`);
    }
    done.push({ issue: r.issue, series: r.target.series, result });
  }
  return done;
}

/**
 * The runner canary, measured after tonight's head with the same workloads and saved to the store with
 * `source.canary` (its own series); a canary run that does not complete is said, never fatal to the night.
 */
async function measureCanary(
  canary: { binDir: string },
  run: Pick<NightlyRequest, 'workloads' | 'rounds' | 'durationS' | 'runAs' | 'tmpDir'>,
  source: RunSource,
  deps: NightlyDeps,
): Promise<PipelineOutcome | undefined> {
  const arm: ArmSpec = { label: 'canary', binDir: canary.binDir, settings: {} };
  const canarySource: RunSource = { ...source, head: { ref: 'canary' }, canary: true };
  try {
    const measured = await deps.measure(nightlyRunRequest(arm, { ...run, source: canarySource }));
    if (measured.result.status !== 'complete') {
      deps.logger.warn(`the runner canary's run is '${measured.result.status}': no canary point tonight`);
    }
    return measured;
  } catch (e) {
    deps.logger.warn(`the runner canary could not be measured: ${errorMessage(e)}`);
    return undefined;
  }
}

/** The latest change point of each suspect series carries why (the report and the issue say it). */
export function markSuspects(analysis: HistoryAnalysis, watch: NightWatch): void {
  for (const s of analysis.series) {
    const why = watch.suspect.get(s.series.id);
    const cp = currentChangePoint(s);
    if (why && cp) cp.suspect = why;
  }
}

/** The commits before a built head, measured into the store first (backfill.ts). */
async function backfillBefore(
  request: NightlyRequest,
  count: number,
  deps: NightlyDeps,
): Promise<BackfillOutcome> {
  if (request.head.kind !== 'build') throw new Error('nightly: a backfill needs a head built from source');
  if (!deps.build || !deps.backfill)
    throw new Error('nightly: a backfill, but no builder or runner was given');
  const { head: _head, history: _history, source, backfill: _count, ...run } = request;
  return runBackfill(
    {
      count,
      build: request.head.request,
      source,
      runRequest: (arm, commitSource) => nightlyRunRequest(arm, { ...run, source: commitSource }),
      ...(request.runAs !== undefined ? { runAs: request.runAs } : {}),
      ...(request.tmpDir !== undefined ? { tmpDir: request.tmpDir } : {}),
    },
    {
      ...deps.backfill,
      logger: deps.logger,
      measure: deps.measure,
      build: deps.build,
      history: deps.history,
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
  );
}

async function headArm(head: NightlyHead, deps: NightlyDeps): Promise<ArmSpec> {
  if (head.kind === 'installed') return { label: 'head', binDir: head.binDir, settings: {} };
  const build = deps.build;
  if (!build) throw new Error('nightly: a head to build, but no builder was given');
  const arms = await deps.logger.group('Building PostgreSQL', () =>
    build({ ...head.request, headOnly: true }, deps.signal),
  );
  const arm = arms.find((a) => a.label === 'head');
  if (!arm) throw new Error('nightly: the build gave no head arm');
  return arm;
}

/** What each fail-on value fails a night on (the values and default are the gate's: FAIL_ON_MEANING). */
export const NIGHTLY_FAIL_ON_MEANING: Record<FailOn, string> = {
  regression: 'an open regression event in the history',
  inconclusive: 'also a series measured tonight that is too short to analyse',
  never: FAIL_ON_MEANING.never,
};

/**
 * What the night means to a gate, for the CLI's exit code and the Action's step alike (flowDecision): under
 * fail-on `regression` an open regression event in the history fails; `inconclusive` also fails on a series
 * tonight's run measured that is still too short to analyse (otherwise pending); `never` passes everything.
 * A night whose run did not complete, or was not saved to the store, could not complete (3).
 */
export function nightlyDecision(outcome: NightlyOutcome, failOn: FailOn): GateDecision {
  const all = outcome.judgement?.events ?? [];
  // An event whose every cell changed the night the runner canary did is suspect: pending, not failed.
  const events = all.filter((e) => e.regressed.some((r) => !r.changePoint.suspect));
  const suspect = all.filter((e) => !events.includes(e));
  const name = (e: (typeof all)[number]) => {
    const worst = e.regressed[0]!;
    const n = e.regressed.length;
    return `${e.workload} (${n} cell${n === 1 ? '' : 's'}, worst ${worst.series.key.metric} at ${clientsText(worst.series.key.clients)} ${(worst.changePoint.relativeChange * 100).toFixed(1)}%)`;
  };
  const named = events.map(name);
  const undecided = outcome.undecided.length;
  const alerts = outcome.watch?.alerts ?? [];
  const series = outcome.analysis?.series.length ?? 0;
  const restarted = outcome.undecided.filter((u) => u.segments.length > 1).length;
  const tooShort =
    `${undecided} series measured tonight ${undecided === 1 ? 'has' : 'have'} too few runs to be analysed yet` +
    (restarted > 0
      ? ` (${restarted === undecided ? '' : `${restarted} of them `}since ${restarted === 1 ? 'its' : 'their'} workload definition changed)`
      : '');
  // What keeps a night without a regression from being green, each said in words.
  const holds = [
    ...(suspect.length > 0
      ? [
          `${suspect.length} suspect regression event${suspect.length === 1 ? '' : 's'} (the runner canary moved the same night): ${suspect.map(name).join(', ')}`,
        ]
      : []),
    ...(undecided > 0 ? [tooShort] : []),
    ...alerts.map((a) => a.message),
  ];
  const incomplete =
    outcome.incomplete ??
    (outcome.notSaved ? `the nightly run was not saved to the store: ${outcome.notSaved}` : undefined);
  const cells = events.reduce((n, e) => n + e.regressed.length, 0);
  return flowDecision({
    flow: 'nightly',
    // The verdict the headline says: undecided (too few runs, or suspect) is inconclusive, not no-change.
    verdict:
      events.length > 0
        ? 'regression'
        : suspect.length > 0 || undecided > 0 || !outcome.judgement
          ? 'inconclusive'
          : outcome.judgement.verdict,
    failOn,
    ...(incomplete !== undefined ? { incomplete } : {}),
    ...(events.length > 0
      ? {
          fails: `open regression event${events.length === 1 ? '' : 's'} in the history: ${named.join(', ')}`,
        }
      : failOn === 'inconclusive' && holds.length > 0
        ? { fails: holds.join('; ') }
        : {}),
    pending: events.length === 0 && holds.length > 0,
    lead:
      events.length > 0
        ? `${events.length} workload${events.length === 1 ? '' : 's'} regressed (${cells} cell${cells === 1 ? '' : 's'})`
        : suspect.length > 0
          ? 'Suspect regression: runner drift'
          : undecided > 0
            ? 'Too few runs to analyse'
            : alerts.length > 0
              ? `${alerts.length} alert${alerts.length === 1 ? '' : 's'}`
              : 'No open regression',
    detail:
      events.length > 0
        ? named.join(', ')
        : holds.length > 0
          ? holds.join('; ')
          : `${series} series over ${outcome.analysis?.runs ?? 0} runs`,
    deciding:
      events.length > 0
        ? events.flatMap((e) => e.regressed.map((r) => r.series.id))
        : [
            ...suspect.flatMap((e) => e.regressed.map((r) => r.series.id)),
            ...outcome.undecided.map((u) => u.series.id),
          ],
  });
}
