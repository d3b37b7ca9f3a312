/**
 * Bounds on products, not only on factors (issue #40): 10 workload files x 64 matrix combinations x 100
 * client counts x 1000 rounds, each inside its own bound, planned 128 million runs (3.1 GB in 60 s, SIGINT
 * ignored). The plan's size is bounded before anything starts (PLANNED_RUNS, PLANNED_SECONDS in
 * src/core/bounds.ts; src/run/plan-size.ts), on every surface that plans runs, through its real parsers:
 * `pgperf run`, the Action's benchmark mode, `pgperf plan` and `pgperf bisect`, and again in the pipeline
 * for any other request. The refusal names the product and each factor.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as runActionEntry } from '../../src/action.js';
import { INPUT_NAMES } from '../../src/adapters/action/modes/benchmark-mode.js';
import { RUN_FLAG_NAMES } from '../../src/adapters/cli/commands/run.js';
import { PLANNED_RUNS, PLANNED_SECONDS } from '../../src/core/bounds.js';
import { parseWorkload, parseWorkloads } from '../../src/drivers/load-workload.js';
import { comparisonOf, type ComparisonOptions } from '../../src/flows/compare/options/comparison-options.js';
import { checkDesignReach } from '../../src/flows/compare/pipeline/pipeline.js';
import { planSize } from '../../src/run/plan-size.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { ACTION_INPUT_DEFAULTS } from '../helpers/action-inputs.js';
import { runMain } from '../helpers/main-in-process.js';

const bin = '/usr/lib/postgresql/15/bin';
/** What the probe of issue #40 asked for: 10 files x 64 combinations x 100 client counts x 1000 rounds. */
const HUGE =
  '10 workload files x 64 matrix combinations x 100 client counts x (1,000 rounds + 6 confirmation rounds) x 2 arms = 128,768,000 runs; at most 20,000';

let dir: string;
let files: string[];
let savedTmpdir: string | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'plan-size-'));
  await mkdir(path.join(dir, 'tmp'));
  await mkdir(path.join(dir, 'workspace'));
  // pgperf's temp dirs go here, so that a refusal can be shown to have made none.
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = path.join(dir, 'tmp');
  const clients = Array.from({ length: 100 }, (_, i) => i + 1).join(', ');
  const eight = (unit: string) => Array.from({ length: 8 }, (_, i) => `${i + 1}${unit}`).join(', ');
  files = [];
  for (let i = 0; i < 10; i++) {
    const file = path.join(dir, 'workspace', `w${i}.yml`);
    await writeFile(
      file,
      `name: w${i}\ntool: pgbench\nbuiltin: select-only\nclients: [${clients}]\nrounds: 1000\n` +
        `matrix:\n  work_mem: [${eight('MB')}]\n  random_page_cost: [${eight('')}]\n`,
    );
    files.push(file);
  }
});
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(dir, { recursive: true, force: true });
});

/** No pgperf temp directory was made: nothing started. */
async function expectNothingStarted(): Promise<void> {
  expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);
}

describe('a plan past its bounds is refused before anything starts, within seconds, on every surface', () => {
  it('pgperf run: 10 files x 64 combinations x 100 client counts x 1000 rounds, through its flags', async () => {
    const started = Date.now();
    const out = path.join(dir, 'out');
    const ran = await runMain([
      'run',
      '--arm',
      `a=${bin}`,
      '--arm',
      `b=${bin}`,
      '--out',
      out,
      '--workload',
      ...files,
    ]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`pgperf: the plan is too large: ${HUGE}`);
    expect(ran.stderr).toContain(
      'plan fewer rounds (--rounds), confirmation rounds (--confirm-rounds), client counts (--clients), matrix values or workload files (--workload)',
    );
    await expectNothingStarted();
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it("the Action's benchmark mode, run through its entry point with INPUT_ variables: the step fails", async () => {
    const workspace = path.join(dir, 'workspace');
    const event = path.join(dir, 'event.json');
    await writeFile(event, JSON.stringify({ ref: 'refs/heads/main' }));
    const inputs: Record<string, string> = {
      ...ACTION_INPUT_DEFAULTS,
      'github-token': '',
      comment: 'false',
      'commit-status': 'false',
      workloads: files.map((f) => path.basename(f)).join('\n'),
      'base-bin-dir': bin,
      'head-bin-dir': bin,
    };
    const env: NodeJS.ProcessEnv = {
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: event,
      GITHUB_WORKSPACE: workspace,
      GITHUB_SHA: 'a'.repeat(40),
      ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const out: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    const started = Date.now();
    try {
      await runActionEntry();
      expect(process.exitCode).toBe(1);
    } finally {
      stdout.mockRestore();
      process.env = saved;
      process.exitCode = undefined;
    }
    expect(Date.now() - started).toBeLessThan(5000);
    const text = out.join('');
    expect(text).toContain(`::error::the plan is too large: ${HUGE}`);
    expect(text).toContain(
      "plan fewer rounds (input 'rounds'), confirmation rounds (input 'confirm-rounds'), client counts (input 'client-counts'), matrix values or workload files (input 'workloads')",
    );
    await expectNothingStarted();
  });

  it('pgperf plan: the size a run would refuse', async () => {
    const ran = await runMain(['plan', '--workload', ...files, '--shards', '4']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`pgperf: the plan is too large: ${HUGE}`);
    expect(ran.stderr).toContain('confirmation rounds (run --confirm-rounds)');
  });

  it('pgperf bisect: the last try (each twice the rounds of the one before), before any build', async () => {
    const ran = await runMain([
      'bisect',
      '--good',
      'a',
      '--bad',
      'b',
      '--workload',
      'select-only',
      '--clients',
      '1',
      '--rounds',
      '1000',
      '--tries',
      '5',
      '--no-store',
      '--cache-dir',
      path.join(dir, 'cache'),
      '--out',
      path.join(dir, 'bisect-out'),
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      'bisect: the last of 5 tries of a commit measures 16000 rounds (each try twice the rounds of the one before); the plan is too large: 1 workload file x 1 client count x (16,000 rounds + 6 confirmation rounds) x 2 arms = 32,012 runs; at most 20,000',
    );
    expect(ran.stderr).toContain('or fewer tries');
    await expectNothingStarted();
  });
});

const workload = (clients: number, rounds: number, extra = '') =>
  parseWorkload(
    `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [${Array.from({ length: clients }, (_, i) => i + 1).join(', ')}]\nrounds: ${rounds}\nduration: 10\nwarmup: 0\n${extra}`,
    'w.yml',
  );

function options(more: Partial<ComparisonOptions>): ComparisonOptions {
  return {
    arms: {
      kind: 'installed',
      arms: [
        { label: 'base', binDir: '/a', settings: {} },
        { label: 'head', binDir: '/b', settings: {} },
      ],
    },
    workloads: [],
    baseline: { kind: 'same-job' },
    analysis: {},
    adaptive: {},
    explain: false,
    instructionCounter: { counter: 'auto' },
    order: 'random',
    force: false,
    dataChecksums: false,
    ...more,
  };
}

describe('the bound is on the product', () => {
  it(`takes ${PLANNED_RUNS.max} runs and refuses one cell-round more`, () => {
    // 10 cells x (994 rounds + 6 confirmation rounds) x 2 arms = 20,000.
    const at = options({ workloads: [workload(10, 994)] });
    expect(comparisonOf(at, RUN_FLAG_NAMES).request.workloads).toHaveLength(1);
    expect(() => comparisonOf(options({ workloads: [workload(10, 995)] }), RUN_FLAG_NAMES)).toThrow(
      'the plan is too large: 1 workload file x 10 client counts x (995 rounds + 6 confirmation rounds) x 2 arms = 20,020 runs; at most 20,000',
    );
    // Each factor within its own bound, and the product past it: client counts from --clients, rounds from --rounds.
    expect(() =>
      comparisonOf(
        options({ workloads: [workload(1, 5)], clients: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], rounds: 1000 }),
        RUN_FLAG_NAMES,
      ),
    ).toThrow(/x 11 client counts x \(1,000 rounds \+ 6 confirmation rounds\) x 2 arms = 22,132 runs/);
  });

  it('counts the rounds an adaptive run may reach, the arms, and a stored baseline with its sentinel', () => {
    expect(() =>
      comparisonOf(options({ workloads: [workload(20, 5)], adaptive: { maxRounds: 1000 } }), INPUT_NAMES),
    ).toThrow(/20 client counts x \(1,000 rounds .*plan fewer rounds \(input 'max-rounds'\)/);
    const fourArms = options({
      workloads: [workload(10, 501)],
      confirmRounds: 0,
      arms: {
        kind: 'installed',
        arms: ['a', 'b', 'c', 'd'].map((label) => ({ label, binDir: `/${label}`, settings: {} })),
      },
    });
    expect(() => comparisonOf(fourArms, RUN_FLAG_NAMES)).toThrow(
      '1 workload file x 10 client counts x 501 rounds x 4 arms = 20,040 runs',
    );
    const stored = planSize({
      workloads: [workload(10, 1000)],
      arms: 1,
      sentinelRounds: 3,
      confirmRounds: 6,
    });
    expect(stored).toMatchObject({
      runs: 10 * (3 * 2 + 6 * 2 + 997),
      factors:
        '1 workload file x 10 client counts x (3 sentinel rounds x 2 arms + 6 confirmation rounds x 2 arms + 997 rounds x 1 arm)',
    });
  });

  it('says "up to" where workloads differ, and the total then', () => {
    const mixed = [
      ...parseWorkloads(
        'name: m\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nrounds: 5\nmatrix: {work_mem: [1MB, 2MB]}\n',
        'm.yml',
      ),
      workload(3, 7),
    ];
    const size = planSize({ workloads: mixed, arms: 2, confirmRounds: 6 });
    expect(size).toMatchObject({
      runs: 2 * 1 * (5 + 6) * 2 + 3 * (7 + 6) * 2,
      cells: 5,
      exact: false,
      factors:
        '2 workload files x up to 2 matrix combinations x up to 3 client counts x (up to 7 rounds + 6 confirmation rounds) x 2 arms',
    });
  });

  it(`refuses more than ${PLANNED_SECONDS.max / 86_400} days of measurement, a shard's share of it`, () => {
    // 100 cells x 30 rounds x 2 arms x 1000 s = 6,000,000 s (69 days), 6,000 runs.
    const long = options({ workloads: [workload(100, 30)], durationS: 1000, confirmRounds: 0 });
    expect(() => comparisonOf(long, RUN_FLAG_NAMES)).toThrow(
      'the plan is too long: 1 workload file x 100 client counts x 30 rounds x 2 arms = 6,000 runs, measuring at least 1,667 h (69 days) (runs and warm-ups at their durations); at most 168 h (7 days) of measurement:',
    );
    expect(() => comparisonOf(long, RUN_FLAG_NAMES)).toThrow(/or shorter runs \(--duration\)$/);
    // Over 10 shards, each measures about a tenth: 167 h, within the week.
    expect(() =>
      comparisonOf({ ...long, shard: { index: 1, count: 10 }, seed: 1 }, RUN_FLAG_NAMES),
    ).not.toThrow();
    // A time budget ends the measurement when it is spent.
    expect(
      planSize({ workloads: [workload(100, 30)], arms: 2, durationS: 1000, timeBudgetS: 3600 }).seconds,
    ).toBe(3600);
  });

  it('is checked again in the pipeline, for any request (nightly, calibrate, a bisection try), in plain words', () => {
    const request = {
      arms: options({}).arms,
      workloads: [workload(100, 1000)],
      analysis: resolveAnalysis({}),
      order: 'random' as const,
      dataChecksums: false,
    };
    expect(() => checkDesignReach(request)).toThrow(
      'the plan is too large: 1 workload file x 100 client counts x (1,000 rounds + 6 confirmation rounds) x 2 arms = 201,200 runs; at most 20,000 (every run is planned in memory before the first starts, and results.json, written again after each run, holds every sample): plan fewer rounds, confirmation rounds, client counts, matrix values or workload files',
    );
    // A calibration (A/A) confirms nothing.
    expect(() => checkDesignReach({ ...request, calibration: true })).toThrow(
      /x 1,000 rounds x 2 arms = 200,000 runs/,
    );
  });
});
