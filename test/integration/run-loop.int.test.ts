import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runBenchmark, type RunRequest } from '../../src/run/run-loop.js';
import { memoryLogger, type Logger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';

const binDir = installedBinDir();
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-run-'));
  await chmod(tmp, 0o755); // the run-as user must reach the clusters inside
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const tiny = parseWorkload(
  'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1, 2]\nduration: 2\nwarmup: 1\nrounds: 2\n',
  'tiny.yml',
);

function request(name: string, extra: Partial<RunRequest> = {}): RunRequest {
  return {
    arms: [
      { label: 'base', binDir, settings: {} },
      { label: 'head', binDir, settings: { synchronous_commit: 'off' } },
    ],
    workloads: [tiny],
    order: 'random',
    seed: 7,
    sink: fileSink(resultsFileOf(name)),
    analysis: resolveAnalysis(),
    logsDir: path.join(tmp, name, 'logs'),
    dataChecksums: false,
    tmpDir: tmp,
    ...extra,
  };
}

/** Where request(name) writes its results. */
const resultsFileOf = (name: string) => path.join(tmp, name, 'results.json');

const deps = (logger: Logger, signal?: AbortSignal) => ({ runner: nodeProcessRunner, logger, signal });

describe('runBenchmark (real PostgreSQL and pgbench)', () => {
  it('interleaves the arms, records every sample and leaves no server running', async () => {
    const logger = memoryLogger();
    const req = request('ok');
    const result = await runBenchmark(req, deps(logger));

    expect(result.status).toBe('complete');
    const onDisk = JSON.parse(await readFile(req.sink.description, 'utf8')) as RunResult;
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(result)));

    // 2 cells x 2 arms x 2 rounds, all ok, each with TPS, latency and a progress series.
    expect(result.samples).toHaveLength(8);
    for (const s of result.samples) {
      expect(s.status).toBe('ok');
      expect(s.metrics.tps).toBeGreaterThan(0);
      expect(s.metrics.latencyAvgMs).toBeGreaterThan(0);
      expect(s.counts.processed).toBeGreaterThan(0);
      expect(s.progress.length).toBeGreaterThanOrEqual(1);
      expect(s.command).toContain(`--random-seed=${s.randomSeed}`);
      expect(new Date(s.endedAt).getTime()).toBeGreaterThan(new Date(s.startedAt).getTime());
    }
    // Within a round, both arms of a cell run back to back; every round covers every cell and arm.
    const measured = result.plan.executed.filter((r) => r.kind === 'measured');
    for (let i = 0; i < measured.length; i += 2) {
      expect(`${measured[i]!.workload}@${measured[i]!.clients}`).toBe(
        `${measured[i + 1]!.workload}@${measured[i + 1]!.clients}`,
      );
      expect(measured[i]!.arm).not.toBe(measured[i + 1]!.arm);
    }
    // One uncounted warm-up per arm and cell, before that cell's first measured run on the arm.
    expect(result.plan.executed.filter((r) => r.kind === 'warmup')).toHaveLength(4);
    // Same seed per round for both arms; a different one per round.
    const seeds = new Map(result.samples.map((s) => [s.round, s.randomSeed]));
    expect(new Set(result.samples.filter((s) => s.round === 1).map((s) => s.randomSeed)).size).toBe(1);
    expect(seeds.get(1)).not.toBe(seeds.get(2));

    expect(result.plan.seed).toBe(7);
    expect(result.arms.map((a) => a.serverVersion)).toEqual([
      expect.stringMatching(/PostgreSQL/),
      expect.stringMatching(/PostgreSQL/),
    ]);
    expect(result.arms[1]!.settingOverrides).toEqual({ synchronous_commit: 'off' });
    expect(result.clients[0]!.version).toMatch(/^pgbench \(PostgreSQL\) \d+/);
    expect(result.environment.cpuCount).toBeGreaterThan(0);
    expect(result.environment.settingsHash).toMatch(/^[0-9a-f]{16}$/);
    expect(
      logger.lines.some((l) =>
        /\[\d+\/12\] round 2\/2 {2}tiny@[12] {2}(base|head) {2}[\d,.]+ tps {2}\(elapsed/.test(l),
      ),
    ).toBe(true);
    // Server logs are kept for the user; the servers and their directories are gone.
    expect(await readFile(path.join(req.logsDir!, 'base.server.log'), 'utf8')).toMatch(
      /database system is ready/,
    );
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('records failing runs with their reason, retries them, and keeps going', async () => {
    const script = path.join(tmp, 'broken.sql');
    await writeFile(script, 'SELECT 1 / (aid - aid) FROM pgbench_accounts WHERE aid = 1;\n');
    await chmod(script, 0o644);
    const broken = parseWorkload(
      `name: broken\ntool: pgbench\nscripts: [{file: ${script}}]\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\nretries: 1\n`,
      'broken.yml',
    );
    const logger = memoryLogger();
    const result = await runBenchmark(request('broken', { workloads: [broken] }), deps(logger));

    expect(result.status).toBe('complete');
    expect(result.samples).toHaveLength(4); // 2 arms x (1 try + 1 retry)
    for (const s of result.samples) {
      expect(s.status).toBe('failed');
      expect(s.exitCode).toBe(2);
      expect(s.failureReason).toMatch(/run aborted \(exit code 2\).*division by zero/);
    }
    expect(result.samples.map((s) => s.attempt).sort()).toEqual([1, 1, 2, 2]);
    expect(
      result.warnings.filter((w) => /broken@1 (base|head) round 1: failed 2 times, giving up/.test(w)),
    ).toHaveLength(2);
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('an abort keeps what was measured, marks the results interrupted and stops the servers', async () => {
    const controller = new AbortController();
    const logger = memoryLogger();
    const watching: Logger = {
      ...logger,
      info(message) {
        logger.info(message);
        if (/round 1\/3/.test(message)) controller.abort();
      },
    };
    const req = request('abort', { rounds: 3, workloads: [{ ...tiny, duration: 2 }] });
    const result = await runBenchmark(req, deps(watching, controller.signal));

    expect(result.status).toBe('interrupted');
    expect(result.samples.length).toBeGreaterThanOrEqual(1);
    expect(result.samples.length).toBeLessThan(12);
    expect(result.samples.every((s) => s.status === 'ok')).toBe(true);
    const onDisk = JSON.parse(await readFile(req.sink.description, 'utf8')) as RunResult;
    expect(onDisk.status).toBe('interrupted');
    expect(onDisk.samples).toHaveLength(result.samples.length);
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('refuses bad arms before anything starts', async () => {
    await expect(
      runBenchmark(
        request('bad', { arms: [{ label: 'base', binDir: '/usr/bin', settings: {} }] }),
        deps(memoryLogger()),
      ),
    ).rejects.toThrow('arm base: /usr/bin has no executable initdb');
    await expect(
      runBenchmark(
        request('dup', {
          arms: [
            { label: 'a', binDir, settings: {} },
            { label: 'a', binDir, settings: {} },
          ],
        }),
        deps(memoryLogger()),
      ),
    ).rejects.toThrow('--arm a: the label is given twice');
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('an untimed workload keeps its cells in the plan with no run, and no cluster is loaded for it', async () => {
    const logger = memoryLogger();
    const timed = { ...tiny, clients: [1], warmup: 0, duration: 1 };
    // Another data-set shape (scale 2): its own clusters, were it measured.
    const untimed = { ...timed, name: 'untimed', scale: 2 };
    const result = await runBenchmark(
      request('untimed', {
        workloads: [timed, untimed],
        rounds: 1,
        untimedWorkloads: { names: ['untimed'], why: 'none of the changed code ran there' },
      }),
      deps(logger),
    );
    expect(result.status).toBe('complete');
    expect(result.plan.cells).toEqual([
      { workload: 'tiny', clients: 1 },
      { workload: 'untimed', clients: 1 },
    ]);
    expect(result.samples.map((s) => s.workload)).toEqual(['tiny', 'tiny']);
    const { lines } = logger;
    expect(lines).toContain('no timed rounds for untimed: none of the changed code ran there');
    // One data set: the untimed workload's was never loaded.
    expect(lines.filter((l) => /: initdb, start, load/.test(l))).toEqual([
      expect.stringMatching(/^arm base: /),
      expect.stringMatching(/^arm head: /),
    ]);
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('warns before spending time when the plan can never reach significance', async () => {
    const logger = memoryLogger();
    const result = await runBenchmark(
      request('power', { workloads: [{ ...tiny, clients: [1], warmup: 0 }], rounds: 1 }),
      deps(logger),
    );
    expect(
      result.warnings.some((w) =>
        /workload tiny: 1 rounds per arm over 1 cells can never reach significance/.test(w),
      ),
    ).toBe(true);
  });
});
