/**
 * runBisection's own logic (which commits it measures, tries with doubled rounds, stopping on an undecided
 * commit, the gate) on a real git repository, with seeded A/B tests in place of real servers: each test's
 * samples come from the synthetic generator and are judged by the real comparison, so the outcome is the
 * same on every machine. Real builds and pgbench are test/integration/bisect.int.test.ts's subject.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn } from '../../helpers/git.js';
import { bisectDecision } from '../../../src/flows/bisect/bisect-gate.js';
import { runBisection, type BisectDeps, type BisectRequest } from '../../../src/flows/bisect/bisection.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import type { PipelineRequest } from '../../../src/flows/compare/pipeline/pipeline.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { parseRepo } from '../../../src/postgres/builds/source.js';
import type { BuildRecord } from '../../../src/postgres/builds/build-record.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

let dir: string;
const shas: string[] = []; // good first, then five commits

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'run-bisection-'));
  const repo = path.join(dir, 'repo');
  const git = gitIn(repo);
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  for (let n = 0; n <= 5; n++) {
    await writeFile(path.join(repo, 'f'), `${n}\n`);
    git('add', 'f');
    git('commit', '-q', '-m', `commit ${n}`);
    shas.push(git('rev-parse', 'HEAD'));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Seeded A/B tests: head's TPS is `effect(commit index)` times good's, with `noise` (lognormal CV) in
 * every run; the seed follows the commit and the try, so each test is reproducible.
 */
function seededDeps(effect: (index: number) => number, noise: number): BisectDeps & { measured: string[] } {
  const measured: string[] = [];
  const pipeline: NonNullable<BisectDeps['pipeline']> = async (req: PipelineRequest) => {
    if (req.arms.kind !== 'installed') throw new Error('bisect gives installed arms');
    const [good, head] = req.arms.arms;
    const index = shas.indexOf(head!.build!.sha);
    measured.push(head!.build!.sha);
    const workload = req.workloads[0]!;
    const result = syntheticRun({
      seed: 1000 * index + (req.seed ?? 0) + (req.rounds ?? 0),
      rounds: req.rounds!,
      arms: [good!.label, head!.label],
      workloads: { [workload.name]: workload.clients },
      noise,
      effect: (arm) => (arm === head!.label ? effect(index) : 1),
    });
    result.analysis = req.analysis;
    return { result, comparison: analyse(result), resultsFile: path.join(req.runDir, 'results.json') };
  };
  return {
    runner: nodeProcessRunner,
    logger: memoryLogger(),
    env: process.env,
    measured,
    build: async (req) => ({
      installDir: path.join(dir, 'install', req.sha ?? req.ref),
      binDir: path.join(dir, 'install', req.sha ?? req.ref, 'bin'),
      record: { sha: req.sha ?? req.ref, cacheHit: true } as BuildRecord,
    }),
    pipeline,
  };
}

function request(overrides: Partial<BisectRequest>): BisectRequest {
  return {
    repo: parseRepo(path.join(dir, 'repo'), dir),
    good: shas[0]!,
    bad: shas[5]!,
    cacheDir: path.join(dir, 'cache'),
    extraOptions: [],
    workload: parseWorkload(
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nrounds: 6\n',
      'w.yml',
    ),
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps' },
    tries: 2,
    seed: 1,
    outDir: path.join(dir, 'out'),
    ...overrides,
  };
}

describe('runBisection with seeded A/B tests', () => {
  it('names the first slow commit, having checked bad first', async () => {
    const deps = seededDeps((i) => (i >= 3 ? 0.8 : 1), 0.005);
    const report = await runBisection(request({ rounds: 8 }), deps);
    expect(report.outcome.kind).toBe('found');
    if (report.outcome.kind !== 'found') return;
    expect(report.outcome.firstBad.sha).toBe(shas[3]);
    expect(report.outcome.lastGood.sha).toBe(shas[2]);
    expect(deps.measured[0]).toBe(shas[5]); // bad is verified before the search
    expect(bisectDecision(report.outcome, 'inconclusive').exitCode).toBe(0);
  });

  it('stops at a commit that stays inconclusive after its tries, each try with twice the rounds', async () => {
    // 20% noise and head 2% slower, at the threshold: no 12-round interval can fit inside ±2% nor certify
    // a regression, and "not worse by 2%" is false (a pass there is the ≤ 5% error the rule allows).
    const deps = seededDeps(() => 0.97, 0.2);
    const report = await runBisection(request({ verifyBad: false }), deps);
    expect(report.outcome).toEqual({
      kind: 'undecided',
      lastGood: { sha: shas[0], subject: 'commit 0' },
      candidates: shas.slice(1).map((sha, i) => ({ sha, subject: `commit ${i + 1}` })),
      undecided: { sha: shas[2], subject: 'commit 2' },
      interrupted: false,
    });
    expect(report.tested).toHaveLength(1);
    expect(report.tested[0]!.call).toBe('undecided');
    expect(report.tested[0]!.judgement.tries.map((t) => [t.rounds, t.verdict])).toEqual([
      [6, 'inconclusive'],
      [12, 'inconclusive'],
    ]);
    expect(bisectDecision(report.outcome, 'inconclusive')).toMatchObject({
      exitCode: 1,
      failure: expect.stringContaining(`${shas[2]!.slice(0, 12)} stayed inconclusive`),
    });
    expect(bisectDecision(report.outcome, 'regression').exitCode).toBe(0);
  });
});
