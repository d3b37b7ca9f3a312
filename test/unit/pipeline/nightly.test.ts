/**
 * The one nightly flow (src/flows/nightly/nightly-flow.ts) with its side effects handed in, as both adapters do: the
 * measurement is a stand-in that saves a prepared night to a real directory store (no server, no noise),
 * the history is real captured pgbench runs with a planted -20% step at 1 and 2 clients
 * (test/unit/history/noisy-history.ts), and the issues go through octokit to the fake GitHub API on
 * 127.0.0.1. Then the gate (exit codes under fail-on) and the report.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunComparison } from '../../../src/core/compare/comparison-types.js';
import { octokitApi } from '../../../src/github/octokit-api.js';
import { trySyncRegressionIssues } from '../../../src/flows/nightly/regression-issues.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { nightlyReport } from '../../../src/core/report/nightly/nightly-report.js';
import {
  nightlyDecision,
  runNightly,
  type NightlyDeps,
  type NightlyRequest,
} from '../../../src/flows/nightly/nightly-flow.js';
import { concludeNight, runNightlyJob } from '../../../src/flows/nightly/nightly-job.js';
import { publishSiteOnBranch, writeNightlySite } from '../../../src/flows/nightly/publish-site.js';
import type { PipelineOutcome, PipelineRequest } from '../../../src/flows/compare/pipeline/pipeline.js';
import { DirStore } from '../../../src/store/dir/dir-store.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { startFakeGitHub, type FakeGitHub } from '../../helpers/fake-github.js';
import { WORKLOAD, noisyHistory } from '../history/noisy-history.js';
import { OTHER, twoWorkloads } from '../history/two-workloads.js';
import { parseBisectMarker } from '../../../src/core/history/bisect-marker.js';
import type { BisectionRequest } from '../../../src/core/report/nightly/regression-event.js';
import { runAction } from '../../../src/adapters/action/modes/run-action.js';
import type { ActionContext } from '../../../src/adapters/action/context.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
import { parseActionInputs } from '../../helpers/action-inputs.js';
import { reportGate } from '../../../src/adapters/cli/report-gate.js';
import { workloadSchema } from '../../../src/drivers/workload.js';

let tmp: string;
let gh: FakeGitHub;
let store: DirStore;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-nightly-flow-'));
  gh = await startFakeGitHub();
  store = await DirStore.open(path.join(tmp, 'store'), { write: true, warn: () => {} });
});
afterEach(async () => {
  await store.close();
  await gh.close();
  await rm(tmp, { recursive: true, force: true });
});

const api = () =>
  octokitApi({ token: 't', baseUrl: gh.url, owner: 'pg', repo: 'postgres', retry: { retries: 0 } });

const request = (over: Partial<NightlyRequest> = {}): NightlyRequest => ({
  head: { kind: 'installed', binDir: '/opt/pg/bin' },
  workloads: [],
  source: { head: { ref: 'master', sha: 'e'.repeat(40), chosenBy: 'test' } },
  history: {},
  ...over,
});

/** Deps whose measurement saves `night` to the store (or returns it as it is), recording the request. */
function deps(
  night: HistoryRun,
  options: { save?: boolean; issues?: boolean } = {},
): NightlyDeps & {
  requests: Array<Omit<PipelineRequest, 'runDir'>>;
  logger: ReturnType<typeof memoryLogger>;
} {
  const requests: Array<Omit<PipelineRequest, 'runDir'>> = [];
  const logger = memoryLogger();
  return {
    logger,
    requests,
    history: store,
    measure: async (req): Promise<PipelineOutcome> => {
      requests.push(req);
      const saved =
        night.status === 'complete' && options.save !== false ? await store.save(night) : undefined;
      return {
        result: night,
        comparison: {} as RunComparison,
        resultsFile: path.join(tmp, 'results.json'),
        ...(saved ? { archived: { id: saved.id, description: store.description } } : {}),
        ...(options.save === false ? { archiveError: 'could not save the run: disk full' } : {}),
      };
    },
    ...(options.issues === false
      ? {}
      : {
          issues: (analysis) =>
            trySyncRegressionIssues(api(), analysis, { repoUrl: 'https://github.com/pg/postgres' }),
        }),
  };
}

/** 40 nights of history in the store (both client counts 20% slower from night 26); night 40 is tonight's. */
async function regressedHistory(): Promise<HistoryRun> {
  const nights = noisyHistory({ nights: 41 });
  for (const run of nights.slice(0, 40)) await store.save(run);
  return nights[40]!;
}

describe('runNightly', () => {
  it('measures into the store, finds the regression event of the workload, opens its issue; exit 1 under fail-on regression', async () => {
    const d = deps(await regressedHistory());
    const outcome = await runNightly(request(), d);
    // One arm "head", the install given, the source as the adapter chose it.
    expect(d.requests).toHaveLength(1);
    expect(d.requests[0]!.arms).toEqual({
      kind: 'installed',
      arms: [{ label: 'head', binDir: '/opt/pg/bin', settings: {} }],
    });
    expect(d.requests[0]!.source?.head).toEqual({ ref: 'master', sha: 'e'.repeat(40), chosenBy: 'test' });
    expect(outcome.analysis?.runs).toBe(41);
    expect(outcome.judgement?.events.map((e) => [e.workload, e.regressed.length])).toEqual([[WORKLOAD, 2]]);
    expect(outcome.issues).toEqual({ done: { opened: [500], updated: [], closed: [], ignored: [] } });
    expect(gh.issues.size).toBe(1);
    expect(d.logger.lines).toContain('regression issues: 1 opened, 0 updated, 0 closed');

    const failed = nightlyDecision(outcome, 'regression');
    expect(failed).toMatchObject({ flow: 'nightly', verdict: 'regression', outcome: 'failed', exitCode: 1 });
    expect(failed.headline.lead).toBe('1 workload regressed (2 cells)');
    expect(failed.deciding).toHaveLength(2);
    expect(failed.failure).toMatch(
      /^open regression event in the history: select-only \(2 cells, worst tps at [12] clients? -\d+\.\d%\) \(fail-on: regression\)$/,
    );
    expect(nightlyDecision(outcome, 'inconclusive').exitCode).toBe(1);
    expect(nightlyDecision(outcome, 'never')).toMatchObject({ exitCode: 0, failOn: 'never' });

    const report = nightlyReport(outcome, failed, { notes: ['History site: somewhere.'] });
    expect(report.split('\n')[0]).toBe('## pgperf nightly: 🔴 Failed: 1 workload regressed (2 cells)');
    expect(report).toContain('Measured master @ eeeeeeeeee.');
    expect(report).toContain(
      'Regression issues: 1 opened, 0 updated, 0 closed (#500).\nHistory site: somewhere.',
    );
  });

  it('builds a head from source head-only and records the built commit', async () => {
    const night = await regressedHistory();
    const built: unknown[] = [];
    const d = deps(night, { issues: false });
    d.build = async (req) => {
      built.push(req);
      return [
        {
          label: 'head',
          binDir: '/cache/pg/bin',
          settings: {},
          build: { sha: 'b'.repeat(40), ref: 'master' } as never,
        },
      ];
    };
    const outcome = await runNightly(
      request({
        head: { kind: 'build', request: { baseRef: 'master', headRef: 'master' } as never },
        source: { head: { ref: 'master', chosenBy: 'nightly build of master' } },
      }),
      d,
    );
    expect(built).toEqual([expect.objectContaining({ headRef: 'master', headOnly: true })]);
    expect(d.requests[0]!.source?.head).toEqual({
      ref: 'master',
      sha: 'b'.repeat(40),
      chosenBy: 'nightly build of master',
    });
    expect(outcome.source.head?.sha).toBe('b'.repeat(40));
    expect(d.logger.lines).toContain('== Building PostgreSQL');
    expect(outcome.issues).toBeUndefined();
  });

  it('an interrupted run: nothing analysed, no issue touched; exit 3 unless fail-on never', async () => {
    const night = {
      ...(await regressedHistory()),
      status: 'interrupted' as const,
      stopReason: 'interrupted (signal)',
    };
    const outcome = await runNightly(request(), deps(night));
    expect(outcome.incomplete).toBe(
      "the nightly run is 'interrupted' (interrupted (signal)): nothing was added to the history",
    );
    expect(outcome.analysis).toBeUndefined();
    expect(outcome.issues).toBeUndefined();
    expect(gh.requests).toEqual([]);
    for (const failOn of ['regression', 'inconclusive'] as const) {
      expect(nightlyDecision(outcome, failOn)).toMatchObject({
        flow: 'nightly',
        outcome: 'incomplete',
        exitCode: 3,
        failure: outcome.incomplete,
      });
    }
    expect(nightlyDecision(outcome, 'never')).toMatchObject({ exitCode: 0, failOn: 'never' });
    const report = nightlyReport(outcome, nightlyDecision(outcome, 'regression')).split('\n');
    expect(report[0]).toBe('## pgperf nightly: ⚠️ Incomplete');
    expect(report[2]).toBe(`${outcome.incomplete}.`);
  });

  it('a run the store did not save: the history is still analysed and reported, but the night could not complete (3)', async () => {
    const outcome = await runNightly(request(), deps(await regressedHistory(), { save: false }));
    expect(outcome.notSaved).toBe('could not save the run: disk full');
    expect(outcome.analysis?.runs).toBe(40);
    expect(nightlyDecision(outcome, 'regression')).toMatchObject({
      outcome: 'incomplete',
      exitCode: 3,
      failure: 'the nightly run was not saved to the store: could not save the run: disk full',
    });
    expect(nightlyReport(outcome, nightlyDecision(outcome, 'regression'))).toContain(
      "⚠️ Tonight's run was not saved to the store: could not save the run: disk full.",
    );
  });

  it('fail-on inconclusive also fails on a series measured tonight that is too short to analyse; regression does not', async () => {
    const nights = noisyHistory({ nights: 41, stepAt: Infinity });
    for (const run of nights.slice(0, 40)) await store.save(run);
    // Tonight also measured a workload the history has never seen.
    const tonight = JSON.parse(
      JSON.stringify(nights[40]).replaceAll(`"${WORKLOAD}"`, '"fresh"'),
    ) as HistoryRun;
    const outcome = await runNightly(request(), deps(tonight, { issues: false }));
    expect(outcome.judgement?.events).toEqual([]);
    expect(outcome.undecided.map((s) => s.series.key.workload)).toEqual(['fresh', 'fresh']);
    // Undecided series keep the night pending under regression, never green.
    expect(nightlyDecision(outcome, 'regression')).toMatchObject({ outcome: 'pending', exitCode: 0 });
    expect(nightlyDecision(outcome, 'regression').status.state).toBe('pending');
    expect(nightlyDecision(outcome, 'inconclusive')).toMatchObject({
      outcome: 'failed',
      exitCode: 1,
      // Tonight measured 'fresh' instead of select-only: its series vanished, an alert too.
      failure: expect.stringMatching(
        /^2 series measured tonight have too few runs to be analysed yet; .*select-only@1\/tps was not measured by the last 1 run\(s\) of its machine .*\(fail-on: inconclusive\)$/,
      ),
    });
  });

  it('an API failure of the issues is a warning naming the permission; the night is analysed and gated all the same', async () => {
    gh.refuse.push({ method: 'GET', pathPattern: /\/issues$/, status: 403 });
    const d = deps(await regressedHistory());
    const outcome = await runNightly(request(), d);
    expect(outcome.issues).toEqual({ error: expect.stringContaining("lacks 'issues: write'") });
    expect(
      d.logger.lines.some((l) =>
        /^warning: the regression issues were not updated: .*saved and reported/.test(l),
      ),
    ).toBe(true);
    expect(nightlyDecision(outcome, 'regression').exitCode).toBe(1);
    expect(nightlyReport(outcome, nightlyDecision(outcome, 'regression'))).toContain(
      '⚠️ the regression issues were not updated: ',
    );
  });
});

describe('one nightly decision', () => {
  it('a night too short to analyse says one headline in the log, the summary and the decision; no verdict of its own before', async () => {
    const nights = noisyHistory({ nights: 4, stepAt: Infinity, clients: [1] });
    for (const run of nights.slice(0, 3)) await store.save(run);
    const d = deps(nights[3]!, { issues: false });
    const outcome = await runNightly(request(), d);
    const { report, decision } = await concludeNight(outcome, { failOn: 'regression' });
    reportGate(decision, d.logger);
    const headline = 'Too few runs to analyse';
    const detail = '1 series measured tonight has too few runs to be analysed yet';
    expect(decision).toMatchObject({
      outcome: 'pending',
      verdict: 'inconclusive',
      headline: { lead: headline, detail },
    });
    expect(report.split('\n').slice(0, 3)).toEqual([
      `## pgperf nightly: ❔ Pending: ${headline}`,
      '',
      `${detail}.`,
    ]);
    expect(d.logger.lines.filter((l) => /verdict|no-change|regressed|PENDING|PASSED/i.test(l))).toEqual([
      `nightly: PENDING: ${headline}: ${detail}`,
    ]);
    expect(report).not.toMatch(/no workload regressed|✅/);
  });

  it('16 nights of a workload edited after the 8th with a tenfold TPS step: no change point, no issue; the report says the workload changed', async () => {
    const nights = noisyHistory({ nights: 16, stepAt: 8, factor: 0.1, clients: [1] }).map((run, night) => ({
      ...run,
      workloads: {
        [WORKLOAD]: workloadSchema.parse({
          name: WORKLOAD,
          tool: 'pgbench',
          builtin: night < 8 ? 'select-only' : 'tpcb-like',
          clients: [1],
        }),
      },
    }));
    for (const run of nights.slice(0, 15)) await store.save(run);
    const outcome = await runNightly(request(), deps(nights[15]!));
    expect(outcome.analysis!.series.flatMap((s) => s.changePoints)).toEqual([]);
    expect(outcome.judgement!.events).toEqual([]);
    expect(gh.issues.size).toBe(0);
    const { report, decision } = await concludeNight(outcome, { failOn: 'regression' });
    expect(decision).toMatchObject({
      outcome: 'passed',
      exitCode: 0,
      headline: { lead: 'No open regression' },
    });
    expect(report).toMatch(
      new RegExp(
        `\\n${WORKLOAD}: the workload definition changed on 2026-10-09 \\([0-9a-f]{10} -> [0-9a-f]{10}\\): history restarts there\\.\\n`,
      ),
    );
  });
});

describe('runNightlyJob', () => {
  it("makes the adapters' plain options the flow's request, keeps the issues with the night's links, and concludes", async () => {
    const night = await regressedHistory();
    const { logger, measure, requests } = deps(night);
    const runUrl = 'https://github.com/pg/postgres/actions/runs/7';
    const outcome = await runNightlyJob(
      {
        head: { kind: 'installed', binDir: '/opt/pg/bin' },
        commit: { ref: 'master', sha: 'e'.repeat(40), chosenBy: 'nightly: input head-ref' },
        workloads: [],
        rounds: 3,
        repository: 'pg/postgres',
        runUrl,
        repoUrl: 'https://github.com/pg/postgres',
        changePoints: { magnitudePct: 2 },
        issues: { api: api(), triageDigest: true },
      },
      { logger, measure, history: store },
    );
    // The source recorded as the Action records it; the history settings from the percentage; no canary.
    expect(requests).toHaveLength(1);
    expect(requests[0]!.source).toEqual({
      repository: 'pg/postgres',
      runUrl,
      head: { ref: 'master', sha: 'e'.repeat(40), chosenBy: 'nightly: input head-ref' },
    });
    expect(requests[0]!.rounds).toBe(3);
    expect(requests[0]).not.toHaveProperty('expectEveryHours');
    expect(outcome.judgement?.events.map((e) => e.workload)).toEqual([WORKLOAD]);
    // The regression issue links the run; the digest was kept too, after it: it lists tonight's
    // regression the night it is found, not a night later.
    expect(outcome.issues).toEqual({ done: expect.objectContaining({ opened: [expect.any(Number)] }) });
    expect(outcome.digest).toEqual({ done: expect.objectContaining({ opened: [expect.any(Number)] }) });
    const regression = 'done' in outcome.issues! ? outcome.issues.done.opened[0]! : 0;
    const digest = 'done' in outcome.digest! ? gh.issues.get(outcome.digest.done.opened[0]!)! : undefined;
    expect(digest?.body).toContain(`- #${regression} `);
    const bodies = [...gh.issues.values()].map((i) => i.body);
    expect(bodies.every((b) => b.includes(runUrl))).toBe(true);

    const reportFile = path.join(tmp, 'out', 'report.md');
    const { report, decision } = await concludeNight(outcome, {
      failOn: 'regression',
      notes: ['History site: somewhere.'],
      reportFile,
    });
    expect(report).toBe(nightlyReport(outcome, decision, { notes: ['History site: somewhere.'] }));
    expect(await readFile(reportFile, 'utf8')).toBe(report);
    expect(decision).toEqual(nightlyDecision(outcome, 'regression'));
  });

  it('two workloads regressing on the same night: one issue naming both, whose bisection starts without a label', async () => {
    const nights = twoWorkloads(42, 26, 26);
    for (const run of nights.slice(0, 40)) await store.save(run);
    const job = {
      head: { kind: 'installed' as const, binDir: '/opt/pg/bin' },
      commit: { ref: 'master', chosenBy: 'test' },
      workloads: [],
      changePoints: { magnitudePct: 2 },
      issues: { api: api() },
    };
    const asked: BisectionRequest[] = [];
    const bisect = async (r: BisectionRequest) => {
      asked.push(r);
      return 'first bad commit 1a2b3c4d5e "Slow down"';
    };
    const { logger, measure } = deps(nights[40]!);
    const outcome = await runNightlyJob(job, { logger, measure, history: store, bisect });
    expect(gh.issues.size).toBe(1);
    const [issue] = [...gh.issues.values()];
    expect(issue!.title).toMatch(/^Performance regression: tpcb-like \+ select-only, 4 cells/);
    // The default budget (2 a week) starts the largest cell's bisection, no label on the issue.
    expect(issue!.labels).toEqual([{ name: 'pgperf-regression' }]);
    expect(asked).toEqual([{ issue: issue!.number, target: parseBisectMarker(issue!.body, 'x') }]);
    expect(asked[0]!.target.workload).toBe(OTHER);
    const series = asked[0]!.target.series;
    expect(outcome.bisections).toEqual([
      { issue: issue!.number, series, result: 'first bad commit 1a2b3c4d5e "Slow down"' },
    ]);
    const report = nightlyReport(outcome, nightlyDecision(outcome, 'regression'));
    expect(report).toContain(`Bisection started without a label: #${issue!.number} (`);
    expect(report).toContain(`Bisection of #${issue!.number} (`);

    // The next night the same issue is updated, not bisected again.
    asked.length = 0;
    const next = deps(nights[41]!);
    const again = await runNightlyJob(job, { ...next, history: store, bisect });
    expect(gh.issues.size).toBe(1);
    expect(asked).toEqual([]);
    expect(again.bisections).toBeUndefined();
  });
});

describe("the Action's mode nightly, before anything runs", () => {
  it('checks canary-bin-dir with the other inputs: a bad one is refused before the head is built or measured', async () => {
    const done: string[] = [];
    const ctx: ActionContext = {
      eventName: 'schedule',
      payload: {},
      owner: 'pg',
      repo: 'postgres',
      sha: 'e'.repeat(40),
      refName: 'master',
      serverUrl: 'https://github.com',
      workspace: tmp,
    };
    const inputs = parseActionInputs({
      mode: 'nightly',
      store: 'store',
      workloads: 'select-only',
      'canary-bin-dir': '/nope',
    });
    const ran = runAction(inputs, ctx, {
      logger: memoryLogger(),
      runner: nodeProcessRunner,
      io: { setOutput: () => {}, writeSummary: () => Promise.resolve() },
      api: api(),
      cacheDir: path.join(tmp, 'cache'),
      actionDir: new URL('../../../', import.meta.url).pathname,
      build: () => {
        done.push('build');
        return Promise.reject(new Error('built'));
      },
      stores: {
        open: () => {
          done.push('open store');
          return Promise.reject(new Error('opened'));
        },
        tempDir: tmp,
      },
    });
    await expect(ran).rejects.toThrow(
      "input 'canary-bin-dir': /nope has no executable initdb (expected a PostgreSQL bin directory",
    );
    expect(done).toEqual([]);
  });
});

describe('the history site of a night', () => {
  it('is written to a directory, or published on the data branch from the store there, with a line for the report', async () => {
    const night = await regressedHistory();
    const logger = memoryLogger();
    const outcome = await runNightly(request(), { ...deps(night, { issues: false }), logger });
    await writeNightlySite(path.join(tmp, 'site'), outcome.analysis!, undefined, logger);
    expect(await readdir(path.join(tmp, 'site'))).toEqual(
      expect.arrayContaining(['index.html', '.nojekyll']),
    );
    expect(logger.lines).toContainEqual(
      expect.stringMatching(new RegExp(`^history site: \\d+ pages in ${path.join(tmp, 'site')}$`)),
    );

    const messages: string[] = [];
    const branch = {
      publishOnBranch: async (
        relative: string,
        write: (dir: string, storeDir: string) => Promise<string>,
      ) => {
        messages.push(await write(path.join(tmp, 'branch', relative), path.join(tmp, 'store')));
        return { commit: 'c'.repeat(40) };
      },
    };
    const published = await publishSiteOnBranch(
      branch,
      { site: 'docs', branch: 'pgperf-data', repository: 'pg/postgres', changePoints: { magnitudePct: 0 } },
      { logger, openStore: (dir) => DirStore.open(dir, { write: false, warn: () => {} }) },
    );
    expect(published).toEqual({
      commit: 'c'.repeat(40),
      note: 'History site: `docs/` of branch `pgperf-data` (commit cccccccccc).',
    });
    expect(messages).toEqual([expect.stringMatching(/^pgperf: history site \(\d+ pages\)$/)]);
    // Titled by the workflow's repository, rendered from the store on the branch.
    expect(await readFile(path.join(tmp, 'branch', 'docs', 'index.html'), 'utf8')).toContain(
      'pgperf nightly: pg/postgres',
    );
    expect(logger.lines).toContain('== Publishing the history site');
    expect(
      await publishSiteOnBranch(
        {},
        { site: 'docs', branch: undefined, repository: 'pg/postgres', changePoints: { magnitudePct: 0 } },
        { logger, openStore: () => Promise.reject(new Error('not opened')) },
      ),
    ).toBeUndefined();
  });
});
