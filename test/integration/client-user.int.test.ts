/**
 * Workload scripts are read, and run, with the rights of the unprivileged user that runs PostgreSQL when
 * pgperf is root (#22 item 1): pgbench itself runs as that user, so a script's `\shell` gets no root
 * rights, and a script that user cannot read is refused, naming the file, before any server starts.
 * Unprivileged, pgperf already is that user: these cases need root and show as skipped otherwise.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadWorkloadFile } from '../../src/drivers/load-workload.js';
import { runBenchmark, type RunRequest } from '../../src/run/run-loop.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { fileSink } from '../../src/run/sink.js';

const isRoot = process.getuid?.() === 0;
const binDir = installedBinDir();
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-client-user-'));
  await chmod(tmp, 0o755); // the run-as user must reach the clusters and the scripts inside
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function workloadWith(name: string, script: string, scriptMode: number) {
  const dir = path.join(tmp, name);
  await mkdir(dir);
  await chmod(dir, 0o755);
  await writeFile(path.join(dir, `${name}.sql`), script);
  await chmod(path.join(dir, `${name}.sql`), scriptMode);
  const file = path.join(dir, `${name}.yml`);
  await writeFile(
    file,
    `name: ${name}\ntool: pgbench\nscripts: [{ file: ${name}.sql }]\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\n`,
  );
  await chmod(file, 0o644);
  return { dir, workload: await loadWorkloadFile(file) };
}

function request(dir: string, workload: RunRequest['workloads'][number]): RunRequest {
  return {
    arms: [
      { label: 'base', binDir, settings: {} },
      { label: 'head', binDir, settings: {} },
    ],
    workloads: [workload],
    order: 'random',
    sink: fileSink(path.join(dir, 'out', 'results.json')),
    analysis: resolveAnalysis(),
    dataChecksums: false,
    tmpDir: dir,
    seed: 1,
  };
}

it.skipIf(!isRoot)(
  "a script's \\shell runs as the unprivileged run user, not as root (needs root)",
  async () => {
    const shared = path.join(tmp, 'shared-out');
    await mkdir(shared);
    await chmod(shared, 0o1777); // the run user writes its uid here
    const uidFile = path.join(shared, 'uid.txt');
    const { dir, workload } = await workloadWith('whoami', `\\shell id -u > ${uidFile}\nSELECT 1;\n`, 0o644);
    const result = await runBenchmark(request(dir, workload), {
      runner: nodeProcessRunner,
      logger: memoryLogger(),
    });
    expect(result.status).toBe('complete');
    const uid = Number((await readFile(uidFile, 'utf8')).trim());
    expect(Number.isInteger(uid)).toBe(true);
    expect(uid).not.toBe(0);
  },
);

it.skipIf(!isRoot)(
  'a script only root can read is refused before any server starts, naming the file and the user (needs root)',
  async () => {
    const { dir, workload } = await workloadWith('secret', 'SELECT 1;\n', 0o600);
    const logger = memoryLogger();
    await expect(runBenchmark(request(dir, workload), { runner: nodeProcessRunner, logger })).rejects.toThrow(
      /workload secret: scripts\[0\]\.file: .*secret\.sql cannot be read by the user "pgperf" that runs pgbench \(.*Permission denied\)/,
    );
    // Nothing started: no server, no cluster directory, no results file.
    expect(processesMentioning(dir)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['secret.sql', 'secret.yml']);
  },
);
