/**
 * `pgperf run --baseline stored` end to end with the machine's PostgreSQL and the built CLI (dist/cli.js):
 * a base run measured and saved to a directory store through the pipeline, then head alone measured through
 * the CLI and compared with it; a run saved by `pgperf run` compared with default flags (the sentinel and the
 * comparison agree on the stored run); other conditions refused before anything is measured (and allowed);
 * a drifted sentinel marking the comparison inconclusive.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { environmentFingerprint } from '../../src/machine/fingerprint.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import { runPipeline } from '../../src/flows/compare/pipeline/pipeline.js';
import { readResults } from '../../src/store/read-results.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { openStore } from '../../src/store/open/open-store.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import {
  flags,
  isolatedEnv,
  onlyResultsFile,
  runCli,
  sameInstallArms,
  type FlagValue,
  type Ran,
} from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { installedBinDir } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const BASE_SHA = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
const WORKLOAD =
  'name: tiny\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 1\nrounds: 6\n';
const tmp = useTmpDir('pgperf-it-stored-base-');
let workloadFile: string;
let baseDoc: RunResult;

function pgperf(args: string[]): Promise<Ran> {
  return runCli(args, { cwd: tmp(), env: isolatedEnv(tmp()) });
}

/** The report's first line: the outcome, then the headline ("PENDING: Inconclusive: ..."). */
const DECISION_LINE = /^[A-Z]+: /m;

/** Lines the run loop prints once clusters are set up or a run is measured. */
const MEASURING = /Setting up clusters|initdb, start, load|== Round |\bround \d+\/\d+|sentinel: base/;

/** A store holding `doc` only. */
async function storeWith(name: string, doc: RunResult): Promise<string> {
  const dir = path.join(tmp(), name);
  const store = await openStore(dir, { home: tmp(), warn: () => {}, write: true });
  await store.save(doc);
  await store.close();
  return dir;
}

/** `pgperf run` of head alone against `store`, results under `out`, then the `extra` flags. */
function headRun(store: string, out: string, extra: Record<string, FlagValue>): Promise<Ran> {
  const values = { workload: workloadFile, store, out: path.join(tmp(), out), seed: 11, ...extra };
  return pgperf(['run', ...sameInstallArms(binDir, ['head']), ...flags(values)]);
}

function resultsFileOf(out: string): Promise<string> {
  return onlyResultsFile(path.join(tmp(), out));
}

async function resultsOf(out: string): Promise<RunResult> {
  return readResults(await resultsFileOf(out));
}

beforeAll(async () => {
  workloadFile = path.join(tmp(), 'tiny.yml');
  await writeFile(workloadFile, WORKLOAD);
  const store = await openStore(path.join(tmp(), 'store'), { home: tmp(), warn: () => {}, write: true });
  try {
    const outcome = await runPipeline(
      {
        arms: {
          kind: 'installed',
          arms: [
            { label: 'base', binDir, settings: {} },
            { label: 'head', binDir, settings: {} },
          ],
        },
        workloads: [parseWorkload(WORKLOAD, 'tiny.yml')],
        order: 'random',
        seed: 5,
        analysis: resolveAnalysis(),
        dataChecksums: false,
        source: { head: { ref: 'master', sha: BASE_SHA } },
        runDir: path.join(tmp(), 'base-run'),
      },
      { runner: nodeProcessRunner, logger: memoryLogger() },
      store,
    );
    expect(outcome.archived).toBeDefined();
    baseDoc = await store.load(outcome.archived!.id);
  } finally {
    await store.close();
  }
}, 300_000);

describe('pgperf run --baseline stored', () => {
  it('measures head only (after a sentinel) and compares it with the stored base, naming its commit and age', async () => {
    expect(baseDoc.status).toBe('complete');
    // This runner was calibrated (an older A/A run with its gate record): the comparison states its record.
    const store = await openStore(path.join(tmp(), 'store'), { home: tmp(), warn: () => {}, write: true });
    await store.save({
      ...baseDoc,
      runId: `${baseDoc.runId}-aa`,
      startedAt: new Date(Date.parse(baseDoc.startedAt) - 3_600_000).toISOString(),
      calibration: true,
      calibrationRecord: { aa: { comparisons: 2, falseAlarms: 0, cells: [] } },
    });
    await store.close();
    const ran = await headRun(path.join(tmp(), 'store'), 'out-ok', {
      baseline: 'stored:1a2b3c4',
      rounds: 4,
      sentinelRounds: 2,
    });
    expect(ran.stderr).not.toContain('internal error');
    // The sentinel's 2 rounds and head's other 2 are parts of the run: a plan warning names the 4 rounds the
    // user chose, never 2.
    const planned = [...(ran.stdout + ran.stderr).matchAll(/; (\d+) planned/g)].map((m) => m[1]);
    expect(planned.filter((n) => n !== '4')).toEqual([]);
    expect(ran.stdout).toMatch(DECISION_LINE);
    expect(ran.stdout).toContain(
      `baseline: stored run ${baseDoc.runId}, commit 1a2b3c4d5e (master), measured 0 day(s) ago`,
    );
    expect(ran.stdout).toMatch(/sentinel: |machine drift/);
    const result = await resultsOf('out-ok');
    expect(result.baseline).toMatchObject({ runId: baseDoc.runId, commit: BASE_SHA, ref: 'master' });
    expect(ran.stdout).toContain('this runner: 2 A/A comparisons, no false alarm; no injected drill');
    expect(result.gateRecord).toMatchObject({ calibrations: 1, aa: { comparisons: 2, falseAlarms: 0 } });
    expect(result.arms.map((a) => a.label)).toEqual(['base', 'head']);
    // The base samples are the stored ones, rounds kept; head was measured in this job: 2 + 2 rounds.
    const stored = baseDoc.samples.filter((s) => s.arm === 'head').map((s) => s.startedAt);
    const base = result.samples.filter((s) => s.arm === 'base');
    expect(base.map((s) => s.startedAt)).toEqual(stored);
    const head = result.samples.filter((s) => s.arm === 'head' && s.status === 'ok');
    expect(head.map((s) => s.round).sort()).toEqual([1, 2, 3, 4]);
    expect(head.every((s) => Date.parse(s.startedAt) > Date.parse(baseDoc.updatedAt))).toBe(true);
    // `compare` on the artifact uses the unpaired test; the merged run is in the store.
    const compared = await pgperf(['compare', '--format', 'json', await resultsFileOf('out-ok')]);
    expect(JSON.parse(compared.stdout)).toMatchObject({
      comparison: { primaryTest: 'mann-whitney', baseline: 'base' },
    });
    const listed = await pgperf(['store', 'list', '--store', path.join(tmp(), 'store'), '--json']);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((r) => r.id)).toContain(result.runId);
  }, 300_000);

  it('refuses a stored run measured on another machine before measuring, naming the fact; allows it when told, and says so', async () => {
    const environment = { ...baseDoc.environment, cpuModel: 'Imaginary CPU 9000' };
    const other: RunResult = {
      ...baseDoc,
      environment,
      fingerprint: environmentFingerprint({ ...baseDoc, environment }),
      arms: baseDoc.arms.map((a) => ({ ...a, binDir: path.join(tmp(), 'gone', 'bin') })),
    };
    const store = await storeWith('store-mismatch', other);
    const refused = await headRun(store, 'out-mismatch', { baseline: 'stored', rounds: 2 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("environment differs: cpuModel: stored 'Imaginary CPU 9000', now '");
    expect(refused.stderr).toContain('--allow-fingerprint-mismatch');
    expect(refused.stderr).not.toMatch(MEASURING);

    const allowed = await headRun(store, 'out-allowed', {
      baseline: 'stored',
      rounds: 2,
      allowFingerprintMismatch: true,
    });
    expect(allowed.stderr).not.toContain('internal error');
    expect(allowed.stdout).toContain('fingerprint mismatch allowed (cpuModel differ)');
    expect(allowed.stdout).toContain('no sentinel: the baseline install is gone');
    const result = await resultsOf('out-allowed');
    expect(result.baseline?.fingerprintMismatch).toEqual(['cpuModel']);
    expect(result.baseline?.sentinel.status).toBe('skipped');
  }, 300_000);

  it('a run saved by pgperf run (arms not named base/head) is compared with default flags: sentinel and comparison agree, exit 0', async () => {
    // Two rounds in the file: with default flags the sentinel takes both (3 by default, at most the rounds).
    // 3 stored base samples against 2 of head can reach neither significance nor a 90% interval (at most
    // 80%), so on an unchanged install no verdict can fail the gate, whatever the noise.
    const file = path.join(tmp(), 'pair.yml');
    await writeFile(file, WORKLOAD.replace('name: tiny', 'name: pair').replace('rounds: 6', 'rounds: 2'));
    const store = path.join(tmp(), 'store-cli');
    const saved = await pgperf([
      'run',
      ...sameInstallArms(binDir, ['old', 'new']),
      ...flags({ workload: file, rounds: 3, force: true, store, out: path.join(tmp(), 'out-saved') }),
    ]);
    expect(saved.stderr).not.toContain('internal error');
    const storedId = /saved to the store .* as (\S+)/.exec(saved.stdout)?.[1];
    expect(storedId).toBeDefined();

    const ran = await pgperf([
      'run',
      ...sameInstallArms(binDir, ['head']),
      ...flags({ workload: file, baseline: 'stored', store, out: path.join(tmp(), 'out-default') }),
    ]);
    expect(ran.stderr).not.toContain('internal error');
    expect(ran.stderr).not.toContain('settingsHash');
    expect(ran.code).toBe(0);
    // Chosen once, before the sentinel: the stored run's last arm, "new".
    const chosen = ran.stderr.indexOf(`baseline: stored run ${storedId} (measured `);
    expect(chosen).toBeGreaterThanOrEqual(0);
    expect(ran.stderr.slice(chosen)).toMatch(/its arm new\n[^]*sentinel: base /);
    expect(ran.stdout).toMatch(DECISION_LINE);
    expect(ran.stdout).toContain(
      `baseline: stored run ${storedId}, commit not recorded, measured 0 day(s) ago`,
    );
    const result = await resultsOf('out-default');
    expect(result.baseline?.runId).toBe(storedId);
    expect(result.baseline?.fingerprintMismatch).toBeUndefined();
    expect(['steady', 'drifted']).toContain(result.baseline?.sentinel.status);
    expect(result.samples.filter((s) => s.arm === 'base').length).toBe(3);
    expect(result.samples.filter((s) => s.arm === 'head' && s.status === 'ok').map((s) => s.round)).toEqual([
      1, 2,
    ]);
  }, 300_000);

  it('a stored arm measured with other settings is refused before anything is measured, naming the setting and both values', async () => {
    const other: RunResult = {
      ...baseDoc,
      arms: baseDoc.arms.map((a) =>
        a.label === 'head' ? { ...a, settingOverrides: { shared_buffers: '128MB' } } : a,
      ),
    };
    const store = await storeWith('store-settings', other);
    const refused = await headRun(store, 'out-settings', {
      baseline: 'stored',
      set: ['head:shared_buffers=256MB'],
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `--baseline stored: the stored run ${baseDoc.runId} (measured ${baseDoc.startedAt}, arm head)`,
    );
    expect(refused.stderr).toContain("settings differ: shared_buffers: stored '128MB', now '256MB'");
    expect(refused.stderr).toContain('Nothing was measured');
    expect(refused.stderr).toContain('--set head:shared_buffers=128MB');
    expect(refused.stderr).toContain('--allow-fingerprint-mismatch');
    // Refused before the first round: no cluster set up, no progress line, no results written.
    expect(refused.stderr).not.toMatch(MEASURING);
    expect(refused.stdout).toBe('');
    const runs = await readdir(path.join(tmp(), 'out-settings')).catch(() => [] as string[]);
    for (const run of runs) expect(await readdir(path.join(tmp(), 'out-settings', run))).toEqual([]);
  }, 120_000);

  it('an unknown REF is refused with the store and the workload named', async () => {
    const ran = await headRun(path.join(tmp(), 'store'), 'out-unknown', { baseline: 'stored:feedface' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--baseline stored:feedface: no stored run of workload tiny');
  }, 60_000);

  it('a drifted sentinel (stored base samples far faster than the install measures now) makes the comparison inconclusive', async () => {
    // Every stored base sample ten times the fastest this machine measured: base-now is slower in every
    // run, whatever the noise (a 1 s run on a starved machine can be 10x slower than its neighbours).
    const fastest = Math.max(...baseDoc.samples.map((s) => s.metrics.tps ?? 0));
    let i = 0;
    const drifted: RunResult = {
      ...baseDoc,
      samples: baseDoc.samples.map((s) =>
        s.arm === 'head' ? { ...s, metrics: { ...s.metrics, tps: fastest * (10 + i++ / 10) } } : s,
      ),
    };
    const store = await storeWith('store-drift', drifted);
    const ran = await headRun(store, 'out-drift', { baseline: 'stored', rounds: 4, sentinelRounds: 4 });
    expect(ran.stderr).not.toContain('internal error');
    expect(ran.stdout).toMatch(/^[A-Z]+: Inconclusive/m);
    expect(ran.stdout).toContain(
      'machine drift: the base install re-measured now differs from its stored samples',
    );
    const result = await resultsOf('out-drift');
    expect(result.baseline?.sentinel).toMatchObject({ status: 'drifted', onDrift: 'inconclusive' });

    // A fresh store: the first store now also holds the merged run just saved, whose head is the newest baseline.
    const refused = await headRun(await storeWith('store-drift-refuse', drifted), 'out-drift-refuse', {
      baseline: 'stored',
      rounds: 4,
      sentinelRounds: 4,
      onDrift: 'refuse',
    });
    // The sentinel measured before it refused: its samples are kept, so the run could not complete (3).
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('refusing the comparison (--on-drift refuse)');
  }, 300_000);
});
