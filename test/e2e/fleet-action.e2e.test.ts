/**
 * The Action over a fleet: three matrix jobs run by the built action with `shard: I/3` on this machine
 * (base and head: the installed PostgreSQL), then `mode: consolidate` posts one comment and one status
 * over every cell, against the loopback GitHub API. A missing shard, shards of two comparisons, and a
 * store-based consolidation that waits for a shard (and one that times out naming it).
 */
import { chmod, cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResults } from '../../src/store/read-results.js';
import { cellId } from '../../src/core/results/result-types.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { openStore } from '../../src/store/open/open-store.js';
import { startTestPgServer } from '../../testkit/pg-server.js';
import { runBuiltAction, type ActionRun } from '../helpers/action-run.js';
import { pullRequestEvent, REPORTING_INPUTS } from '../helpers/action-events.js';
import { startFakeGitHub } from '../helpers/fake-github.js';
import { useFakeGitHub } from '../helpers/fake-github-per-test.js';
import { writeWorkloadFile } from '../helpers/workload-file.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const PR = 42;
const HEAD_SHA = 'a'.repeat(40);
const prEvent = pullRequestEvent({
  number: PR,
  headSha: HEAD_SHA,
  headRef: 'fix/btree-root-lock',
  repository: null,
});
let tmp: string;
const fake = useFakeGitHub();
let workload: string;
/** The shards' results.json files, as the consolidate job downloads them (one directory per artifact). */
const shardFiles: string[] = [];

function action(
  inputs: Record<string, string>,
  api = fake.gh,
  onOutput?: (soFar: string) => void,
): Promise<ActionRun> {
  return runBuiltAction(
    {
      mode: 'benchmark',
      'base-bin-dir': binDir,
      'head-bin-dir': binDir,
      workloads: workload,
      alpha: '0.05',
      threshold: '2',
      'fail-on': 'regression',
      ...REPORTING_INPUTS,
      'comment-id': 'default',
      baseline: 'same-job',
      'wait-timeout': '10m',
      // Two rounds of one cell per shard keep the test short; no plan this small reaches significance.
      force: 'true',
      ...inputs,
    },
    {
      workspace: tmp,
      apiUrl: api.url,
      event: prEvent,
      eventName: 'pull_request',
      sha: HEAD_SHA,
      ...(onOutput ? { onOutput } : {}),
    },
  );
}

const mine = () => (fake.gh.comments.get(PR) ?? []).filter((c) => c.user.login === 'pgperf-bot');

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-fleet-'));
  await chmod(tmp, 0o755);
  workload = await writeWorkloadFile(
    tmp,
    'fleet.yml',
    'name: fleet\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1, 2, 3]\nduration: 1\nwarmup: 0\nrounds: 2\n',
  );
  const api = await startFakeGitHub();
  try {
    for (const i of [1, 2, 3]) {
      // Shards 1 and 2 also save to the store; shard 3 only uploads its artifact.
      const ran = await action(
        { shard: `${i}/3`, 'results-dir': `job${i}`, ...(i < 3 ? { store: 'store' } : {}) },
        api,
      );
      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.stdout).toContain(`Shard ${i}/3 of plan`);
      expect(ran.stdout).toContain('the consolidate job (mode: consolidate) posts the verdict');
      expect(ran.summary).toContain(`Shard ${i}/3`);
      // Its gate is pending (the consolidation decides), its verdict partial; decision.json says so.
      expect(ran.outputs.outcome).toBe('pending');
      expect(ran.outputs.verdict).toMatch(/^(regression|improvement|no-change|inconclusive|mixed)$/);
      const shardDecision = JSON.parse(await readFile(ran.outputs['decision-json']!, 'utf8'));
      expect(shardDecision).toMatchObject({ flow: 'shard', outcome: 'pending', exitCode: 0 });
      const artifact = path.join(tmp, 'artifacts', `shard-${i}`);
      await mkdir(artifact, { recursive: true });
      await cp(path.join(tmp, `job${i}`, 'results.json'), path.join(artifact, 'results.json'));
      shardFiles.push(path.join(artifact, 'results.json'));
    }
    // A sharded job is partial: it neither comments nor sets a status.
    expect(api.comments.get(PR) ?? []).toEqual([]);
    expect(api.statuses).toEqual([]);
  } finally {
    await api.close();
  }
}, 600_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the action over a matrix of shards', () => {
  it('each shard ran its own cells with the workflow run id as seed, together every cell once', async () => {
    const docs = await Promise.all(shardFiles.map((f) => readResults(f)));
    const planIds = new Set(docs.map((d) => d.plan.shard!.planId));
    expect(planIds.size).toBe(1);
    expect(docs.map((d) => d.plan.seed)).toEqual([777, 777, 777]);
    expect(docs.map((d) => d.plan.shard!.index)).toEqual([1, 2, 3]);
    const cells = docs.flatMap((d) => [...new Set(d.samples.map(cellId))]);
    expect(cells.sort()).toEqual(['fleet@1', 'fleet@2', 'fleet@3']);
  });

  it('mode consolidate posts one comment and one status covering every cell', async () => {
    // Inconclusive by construction, whatever the noise: each cell has 2 rounds (2 pairs), whose signed-rank
    // p is never below 0.5 (no regression or improvement) and whose 90% interval reaches only 50% confidence
    // (neither no-change nor a likely regression). The commit status of an undecided comparison is pending.
    const ran = await action({ mode: 'consolidate', 'results-dir': 'artifacts' });
    expect(ran.code, ran.stdout).toBe(0);
    expect(mine()).toHaveLength(1);
    expect(fake.gh.statuses).toHaveLength(1);
    const body = mine()[0]!.body;
    expect(body.split('\n')[0]).toBe('<!-- pgperf:comment-id=default -->');
    expect(body).toMatch(/1 machine class · plan `[0-9a-f]{16}`, 3 shards/);
    expect(body).toContain('shards 1, 2, 3 of 3');
    expect(body).not.toContain('Incomplete');
    expect(ran.outputs.verdict).toBe('inconclusive');
    expect(fake.gh.statuses[0]).toMatchObject({ sha: HEAD_SHA, context: 'pgperf/default', state: 'pending' });
    // The merged document: every cell of the plan, every shard's samples, Holm over the three cells.
    const merged = await readResults(ran.outputs['results-json']!);
    expect(merged.status).toBe('complete');
    expect(merged.plan.cells.map(cellId)).toEqual(['fleet@1', 'fleet@2', 'fleet@3']);
    const shardSamples = (await Promise.all(shardFiles.map((f) => readResults(f)))).flatMap((d) => d.samples);
    expect(merged.samples).toHaveLength(shardSamples.length);
    expect(body).toMatch(/Holm over 3/);
    expect(await readFile(ran.outputs['report-markdown']!, 'utf8')).toBe(body);
    expect(ran.summary).toContain('shards 1, 2, 3 of 3');

    // Consolidating again (a re-run) edits the same comment.
    const again = await action({ mode: 'consolidate', 'results-dir': 'artifacts' });
    expect(again.code, again.stdout).toBe(0);
    expect(mine()).toHaveLength(1);
    expect(processesMentioning(tmp)).toEqual([]);
  });

  it('a missing shard makes it inconclusive, names the shard, sets an error status and fails the step', async () => {
    const dir = path.join(tmp, 'two-of-three');
    for (const i of [1, 2]) {
      await mkdir(path.join(dir, `shard-${i}`), { recursive: true });
      await cp(shardFiles[i - 1]!, path.join(dir, `shard-${i}`, 'results.json'));
    }
    const ran = await action({ mode: 'consolidate', 'results-dir': 'two-of-three' });
    expect(ran.code).not.toBe(0);
    expect(ran.stdout).toMatch(
      /::error::shard 3 of 3 missing: partial results decide nothing \(fail-on: regression\)/,
    );
    expect(ran.outputs).toMatchObject({ verdict: 'inconclusive', outcome: 'incomplete' });
    const body = mine()[0]!.body;
    expect(body).toMatch(/⚠️ \*\*Incomplete\*\*: shard 3 of 3 missing; partial results decide nothing/);
    expect(body).toMatch(/Incomplete, no verdict\*\*: shard 3 of 3 missing on `[0-9a-f]{16}`/);
    expect(body).toMatch(/shard 3 of 3 missing: no data for fleet&#64;\d/);
    expect(fake.gh.statuses).toHaveLength(1);
    expect(fake.gh.statuses[0]).toMatchObject({
      state: 'error',
      description: 'Incomplete: shard 3 of 3 missing; no verdict',
    });
  });

  it('refuses shards of two different comparisons, naming the files, and posts nothing', async () => {
    const other = await action({ shard: '1/3', rounds: '3', 'results-dir': 'other-job' });
    expect(other.code, other.stdout).toBe(0);
    const dir = path.join(tmp, 'mixed');
    await mkdir(path.join(dir, 'a'), { recursive: true });
    await mkdir(path.join(dir, 'b'), { recursive: true });
    await cp(shardFiles[1]!, path.join(dir, 'a', 'results.json'));
    await cp(path.join(tmp, 'other-job', 'results.json'), path.join(dir, 'b', 'results.json'));
    const ran = await action({ mode: 'consolidate', 'results-dir': 'mixed' });
    expect(ran.code).not.toBe(0);
    expect(ran.stdout).toMatch(
      /::error::.*mixed\/b\/results\.json: plan [0-9a-f]{16} \(3 shards\), but .*mixed\/a\/results\.json is plan/,
    );
    expect(ran.stdout).toContain('the shards belong to different comparisons');
    expect(mine()).toEqual([]);
    expect(fake.gh.statuses).toEqual([]);
  }, 300_000);

  it('from the store: waits for a missing shard, and when it never comes names it after wait-timeout', async () => {
    const late = await action({
      mode: 'consolidate',
      'results-dir': 'nothing-here',
      store: 'store',
      'wait-timeout': '3s',
    });
    expect(late.code).not.toBe(0);
    expect(late.stdout).toMatch(
      /waiting for shard 3 of 3 on machine class [0-9a-f]{16} \([1-3] s left of wait-timeout 3 s\)/,
    );
    expect(late.stdout).toMatch(/consolidating without shard 3 of 3/);
    expect(late.stdout).toMatch(/consolidating store run \S+, store run \S+/);
    expect(mine()[0]!.body).toMatch(/shard 3 of 3 missing/);
    expect(fake.gh.statuses.at(-1)).toMatchObject({ state: 'error' });

    // Shard 3 reaches the store while the consolidation waits: it is consolidated complete.
    // Saved once the action says it waits (not after a fixed sleep, which a loaded machine can outrun).
    let seenWaiting!: () => void;
    const isWaiting = new Promise<void>((resolve) => (seenWaiting = resolve));
    const waiting = action(
      {
        mode: 'consolidate',
        'results-dir': 'nothing-here',
        store: 'store',
        'wait-timeout': '2m',
        'fail-on': 'never',
      },
      fake.gh,
      (soFar) => {
        if (soFar.includes('waiting for shard 3 of 3')) seenWaiting();
      },
    );
    await isWaiting;
    const store = await DirStore.open(path.join(tmp, 'store'), { warn: () => {}, write: true });
    await store.save(await readResults(shardFiles[2]!));
    await store.close();
    const ran = await waiting;
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toMatch(/waiting for shard 3 of 3/);
    expect(ran.stdout).not.toMatch(/consolidating without/);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('shards 1, 2, 3 of 3');
    expect(fake.gh.statuses.at(-1)!.state).not.toBe('error');
  }, 120_000);

  it('from a PostgreSQL store the shards wrote at once: one comment over all of them, the password masked', async () => {
    const server = await startTestPgServer('fleet-e2e');
    try {
      const password = 'fleet-s3cret/pw';
      await server.admin(`CREATE ROLE fleet_app LOGIN PASSWORD '${password}'`);
      await server.admin('CREATE DATABASE fleet_store OWNER fleet_app');
      const url = `postgresql://fleet_app:${encodeURIComponent(password)}@127.0.0.1:${server.port}/fleet_store`;
      // Three runners saving at the same moment, each over its own connection.
      await Promise.all(
        shardFiles.map(async (file) => {
          const store = await openStore(url, { home: tmp, warn: () => {}, write: true });
          try {
            await store.save(await readResults(file));
          } finally {
            await store.close();
          }
        }),
      );
      const ran = await action({
        mode: 'consolidate',
        'results-dir': 'nothing-here',
        store: url,
        'wait-timeout': '5s',
        'fail-on': 'never',
      });
      expect(ran.code, ran.stdout).toBe(0);
      // The runner hides what ::add-mask:: registers; nothing else may print the password.
      expect(ran.stdout).toMatch(/^::add-mask::postgresql:\/\/fleet_app:/m);
      const printed = ran.stdout
        .split('\n')
        .filter((l) => !l.startsWith('::add-mask::'))
        .join('\n');
      expect(printed).not.toContain(password);
      expect(printed).not.toContain(encodeURIComponent(password));
      expect(ran.stdout).not.toMatch(/waiting for/);
      expect(mine()).toHaveLength(1);
      expect(mine()[0]!.body).toContain('shards 1, 2, 3 of 3');
      expect(fake.gh.statuses).toHaveLength(1);
      expect(fake.gh.statuses[0]!.state).not.toBe('error');
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('finds nothing: says where it looked', async () => {
    const ran = await action({ mode: 'consolidate', 'results-dir': 'nothing-here' });
    expect(ran.code).not.toBe(0);
    expect(ran.stdout).toMatch(
      /::error::mode consolidate: no shards found \(looked for results.json under .*nothing-here\)/,
    );
  });
});
