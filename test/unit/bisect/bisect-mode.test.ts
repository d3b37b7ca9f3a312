/**
 * The Action's mode bisect before anything is built: which job an event asks for (the labeled regression
 * issue's marker, or the workflow_dispatch inputs), the trust rules on the issue (opened by the token's
 * login, carrying the series marker), and bad input refused with messages naming the input or the issue.
 * The issues come from the fake GitHub API on 127.0.0.1 through octokit; the commits from a real git
 * repository made here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../helpers/git.js';
import { bisectJob } from '../../../src/adapters/action/modes/bisect-mode.js';
import type { ActionContext } from '../../../src/adapters/action/context.js';
import { runAction } from '../../../src/adapters/action/modes/run-action.js';
import { bisectMarker, type BisectTarget } from '../../../src/core/history/bisect-marker.js';
import { BISECT_LABEL, seriesMarker } from '../../../src/flows/nightly/regression-issues.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
import { parseActionInputs } from '../../helpers/action-inputs.js';
import { BISECT_TARGET, useFakeGitHub } from '../../helpers/fake-github-per-test.js';

const root = new URL('../../../', import.meta.url).pathname;
const inputsOf = (overrides: Record<string, string>) => parseActionInputs({ mode: 'bisect', ...overrides });

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-bisect-mode-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});
const fake = useFakeGitHub();

const api = fake.api;

const target = BISECT_TARGET;
const pgperfBody = (t: BisectTarget = target) => `${seriesMarker(t.series)}\n${bisectMarker(t)}\nregressed`;

function issueEvent(body: string, login = 'pgperf-bot', label = BISECT_LABEL): ActionContext {
  return {
    eventName: 'issues',
    payload: { action: 'labeled', label: { name: label }, issue: { number: 42, body, user: { login } } },
    owner: 'pg',
    repo: 'postgres',
    sha: 'c'.repeat(40),
    serverUrl: 'https://github.com',
    workspace: tmp,
  };
}

const deps = () => ({ api: api(), actionDir: root });

describe('bisectJob', () => {
  it("bisects the labeled issue's series and commits, with the shipped workload at the series' clients", async () => {
    const job = await bisectJob(inputsOf({ workloads: '' }), issueEvent(pgperfBody()), deps());
    expect(job).toMatchObject({ good: target.good, bad: target.bad, metric: 'tps', issue: 42 });
    expect(job.workload.name).toBe('select-only');
    expect(job.workload.clients).toEqual([4]);
    expect(job.names.good).toBe("issue #42's last good commit");
  });

  it('refuses issues pgperf did not open, bodies without the markers, and unknown workloads', async () => {
    await expect(
      bisectJob(inputsOf({ workloads: '' }), issueEvent(pgperfBody(), 'mallory'), deps()),
    ).rejects.toThrow("issue #42 was opened by 'mallory', not by 'pgperf-bot'");
    await expect(
      bisectJob(inputsOf({ workloads: '' }), issueEvent('please build my branch'), deps()),
    ).rejects.toThrow("issue #42 has no '<!-- pgperf:bisect ...' marker");
    await expect(
      bisectJob(inputsOf({ workloads: '' }), issueEvent(bisectMarker(target)), deps()),
    ).rejects.toThrow('issue #42 has no pgperf:series marker for series fp/select-only@4/tps');
    const unknown = { ...target, workload: 'mystery', series: 'fp/mystery@4/tps' };
    await expect(
      bisectJob(inputsOf({ workloads: '' }), issueEvent(pgperfBody(unknown)), deps()),
    ).rejects.toThrow("issue #42 regressed in workload 'mystery', which is not shipped with pgperf");
    await expect(
      bisectJob(inputsOf({ workloads: 'tpcb-like' }), issueEvent(pgperfBody()), deps()),
    ).rejects.toThrow(
      "issue #42 regressed in workload 'select-only', which is not among the input 'workloads' (tpcb-like)",
    );
    await expect(
      bisectJob(inputsOf({ workloads: '', 'base-ref': 'x' }), issueEvent(pgperfBody()), deps()),
    ).rejects.toThrow("remove the inputs 'base-ref'/'head-ref'");
    const noToken = { api: undefined, actionDir: root };
    await expect(bisectJob(inputsOf({ workloads: '' }), issueEvent(pgperfBody()), noToken)).rejects.toThrow(
      "pass 'github-token'",
    );
  });

  it('takes good, bad, one workload and clients from the inputs on workflow_dispatch', async () => {
    const dispatch: ActionContext = { ...issueEvent(''), eventName: 'workflow_dispatch', payload: {} };
    const job = await bisectJob(
      inputsOf({ 'base-ref': 'v1', 'head-ref': 'main', workloads: 'tpcb-like', clients: '8' }),
      dispatch,
      deps(),
    );
    expect(job).toMatchObject({ good: 'v1', bad: 'main' });
    expect(job.workload.clients).toEqual([8]);
    expect(job.issue).toBeUndefined();
    await expect(bisectJob(inputsOf({ 'head-ref': 'main' }), dispatch, deps())).rejects.toThrow(
      "set 'base-ref' (a good commit) and 'head-ref'",
    );
    await expect(
      bisectJob(
        inputsOf({ 'base-ref': 'v1', 'head-ref': 'main', workloads: 'smoke\ntpcb-like' }),
        dispatch,
        deps(),
      ),
    ).rejects.toThrow("set 'workloads' to exactly one workload");
  });
});

describe('runAction in mode bisect', () => {
  const io = () => {
    const outputs: Record<string, string> = {};
    return { outputs, setOutput: (k: string, v: string) => (outputs[k] = v), writeSummary: async () => {} };
  };
  const run = (overrides: Record<string, string>, ctx: ActionContext) => {
    const sink = io();
    return {
      sink,
      done: runAction(inputsOf(overrides), ctx, {
        logger: memoryLogger(),
        runner: nodeProcessRunner,
        io: sink,
        api: api(),
        cacheDir: path.join(tmp, 'cache'),
        actionDir: root,
      }),
    };
  };

  it('does nothing on other labels, and refuses inputs that mean nothing to a bisection', async () => {
    const other = run({ workloads: '' }, issueEvent(pgperfBody(), 'pgperf-bot', 'bug'));
    expect((await other.done).failure).toBeUndefined();
    expect(fake.gh.requests).toEqual([]);
    expect(other.sink.outputs['first-bad-commit']).toBe('');
    // Refused with the other inputs, when they are parsed (src/adapters/action/inputs.ts).
    expect(() => run({ patches: 'x.patch' }, issueEvent(pgperfBody()))).toThrow(
      "mode bisect builds every commit it measures from source and bounds each A/B test by rounds or max-rounds: remove 'patches'",
    );
    // The rounds by the bisection's one check (src/flows/bisect/bisect-request.ts), in the inputs' names.
    expect(() => inputsOf({ 'time-budget': '30m' })).toThrow(
      "input 'time-budget': a bisection runs several A/B tests; bound each with input 'max-rounds' N instead",
    );
    expect(() => inputsOf({ rounds: '6', 'max-rounds': '20' })).toThrow(
      "input 'rounds' and input 'max-rounds' both given: adaptive tests take their rounds from the looks",
    );
  });

  it('names the inputs when good is not an ancestor of bad (a real repository)', async () => {
    const repo = path.join(tmp, 'repo');
    const git = gitIn(repo);
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);
    const shas: string[] = [];
    for (const n of [1, 2, 3]) {
      await writeFile(path.join(repo, 'f'), `${n}\n`);
      git('add', 'f');
      git('commit', '-q', '-m', `c${n}`);
      shas.push(git('rev-parse', 'HEAD'));
    }
    const dispatch: ActionContext = { ...issueEvent(''), eventName: 'workflow_dispatch', payload: {} };
    const swapped = run(
      { repo, 'base-ref': shas[2]!, 'head-ref': shas[0]!, workloads: 'select-only', clients: '1' },
      dispatch,
    );
    await expect(swapped.done).rejects.toThrow(
      `input 'base-ref' ${shas[2]} (${shas[2]!.slice(0, 7)}) is not an ancestor of input 'head-ref' ${shas[0]}`,
    );
  });
});
