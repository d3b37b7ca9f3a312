/**
 * The environment a workload's own code sees: a custom pgbench script runs `\shell env` while
 * pgperf's environment holds a fake Action token (INPUT_GITHUB-TOKEN, GITHUB_TOKEN, an ACTIONS_ runtime
 * token). None of them may reach it; the allow-listed PATH does.
 */
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadWorkloadFile } from '../../src/drivers/load-workload.js';
import { runBenchmark } from '../../src/runner/run-loop.js';
import { memoryLogger } from '../../src/util/logger.js';
import { nodeProcessRunner } from '../../src/util/process.js';
import { installedBinDir, processesMentioning } from '../helpers/postgres.js';
import { resolveAnalysis } from '../../src/pipeline/analysis.js';
import { fileSink } from '../../src/results/sink.js';

const binDir = installedBinDir();
let tmp: string;
const saved = { ...process.env };

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-secrets-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  process.env = saved;
  await rm(tmp, { recursive: true, force: true });
});

it('a workload script (\\shell env) sees no token, no INPUT_*, no ACTIONS_*', async () => {
  const envFile = path.join(tmp, 'env.txt');
  await writeFile(path.join(tmp, 'spy.sql'), `\\shell env > ${envFile}\nSELECT 1;\n`);
  await writeFile(
    path.join(tmp, 'spy.yml'),
    [
      'name: spy',
      'tool: pgbench',
      'scripts: [{ file: spy.sql }]',
      'scale: 1',
      'clients: [1]',
      'duration: 1',
      'warmup: 0',
      'rounds: 1',
      'settings: { shared_buffers: 32MB }',
    ].join('\n'),
  );
  const workload = await loadWorkloadFile(path.join(tmp, 'spy.yml'));
  process.env['INPUT_GITHUB-TOKEN'] = 'ghs_fake_input_token_123';
  process.env.GITHUB_TOKEN = 'ghs_fake_github_token_456';
  process.env.ACTIONS_RUNTIME_TOKEN = 'fake_runtime_789';
  process.env.PGPERF_STORE = 'postgres://u:fake_store_pw@localhost/x';
  const result = await runBenchmark(
    {
      arms: [
        { label: 'base', binDir, settings: {} },
        { label: 'head', binDir, settings: {} },
      ],
      workloads: [workload],
      order: 'random',
      sink: fileSink(path.join(tmp, 'out', 'results.json')),
      analysis: resolveAnalysis(),
      dataChecksums: false,
      tmpDir: tmp,
      seed: 1,
    },
    { runner: nodeProcessRunner, logger: memoryLogger() },
  );
  expect(result.status).toBe('complete');
  const seen = await readFile(envFile, 'utf8');
  expect(seen).toMatch(/^PATH=/m);
  expect(seen).toMatch(/^PGAPPNAME=pgbench$/m);
  for (const secret of [
    'ghs_fake_input_token_123',
    'ghs_fake_github_token_456',
    'fake_runtime_789',
    'fake_store_pw',
  ]) {
    expect(seen).not.toContain(secret);
  }
  expect(seen).not.toMatch(/^(INPUT_|ACTIONS_|GITHUB_TOKEN)/m);
  expect(processesMentioning(tmp)).toEqual([]);
  expect((await readdir(tmp)).filter((d) => d.startsWith('pgperf-'))).toEqual([]);
});
