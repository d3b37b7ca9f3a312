/**
 * The CLI gates like the Action, on real PostgreSQL: base commits asynchronously (synchronous_commit off),
 * head waits for every commit's WAL flush (on) and, before it, 10 ms of commit_delay (commit_siblings 0
 * makes the delay unconditional), the smoke workload (tpcb-like writes at 1 and 2 clients). On its own,
 * synchronous_commit's cost is the disk's fsync latency, which a write-back cache or tmpfs makes small
 * enough for noise to hide; the 10 ms wait holds head to about 100 commits a second per flush whatever the
 * disk, while base never waits: a slowdown of head far beyond any runner noise and the 2% threshold, so
 * the verdict cannot flip. `pgperf run --fail-on regression` exits 1 and keeps the
 * results; `pgperf compare` on them exits 1, or 0 with --fail-on never; the markdown headline says
 * regression and names the cell the gate fails on, the same cell the decision's status names.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/core/compare/decision/decision.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runCli, sameInstallRun, SMOKE } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const tmp = useTmpDir('pgperf-it-gate-');

const pgperf = (args: string[]) => runCli(args, { cwd: tmp() });

describe('pgperf run / compare --fail-on (synchronous_commit off for base, on with a 10 ms commit delay for head)', () => {
  let runDir: string;
  let decision: Decision;

  it('run exits 1 on the regression, and the results and the decision are saved', async () => {
    const out = path.join(tmp(), 'out');
    const set = ['base:synchronous_commit=off', 'head:commit_delay=10000', 'head:commit_siblings=0'];
    const ran = await pgperf(
      sameInstallRun(binDir, {
        set,
        workload: SMOKE,
        rounds: 8,
        out,
        tmpDir: tmp(),
        noStore: true,
        failOn: 'regression',
      }),
    );
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stdout.split('\n')[0]).toMatch(
      /^FAILED: \d (likely )?regressions?.*: smoke at [12] clients?, TPS -/,
    );
    const [dir] = await readdir(out);
    runDir = path.join(out, dir!);
    const result = JSON.parse(await readFile(path.join(runDir, 'results.json'), 'utf8')) as RunResult;
    expect(result.status).toBe('complete');
    expect(result.samples.filter((s) => s.status === 'ok')).toHaveLength(2 * 2 * 8);
    decision = JSON.parse(await readFile(path.join(runDir, 'decision.json'), 'utf8')) as Decision;
    expect(decision).toMatchObject({ outcome: 'failed', exitCode: 1, failOn: 'regression' });
    expect(decision.cells[0]).toMatchObject({ workload: 'smoke', metric: 'tps', failsGate: true });
    // Confirm before accusing: every certified regression was measured again (6 rounds, both arms, kept
    // apart from the main samples) and, a 10 ms commit delay being no accident, confirmed.
    const regressed = decision.cells.filter((c) => c.verdict === 'regression');
    expect(regressed.length).toBeGreaterThan(0);
    expect(result.confirmation).toMatchObject({ rounds: 6 });
    expect(result.confirmation!.cells.map((c) => c.clients).sort()).toEqual(
      regressed.map((c) => c.clients).sort(),
    );
    const blockOk = result.confirmation!.samples.filter((s) => s.status === 'ok');
    expect(new Set(blockOk.map((s) => s.arm))).toEqual(new Set(['base', 'head']));
    expect(blockOk).toHaveLength(2 * 6 * regressed.length);
    for (const c of regressed) {
      expect(c).toMatchObject({ unconfirmed: false, confirmation: { confirmed: true } });
    }
    expect(ran.stderr).toMatch(/confirmation: .*regressed; measuring 6 more round\(s\)/);
    expect(processesMentioning(tmp())).toEqual([]);
  }, 900_000);

  it('compare exits 1 under --fail-on regression and 0 under never; the headline names the failing cell', async () => {
    const results = path.join(runDir, 'results.json');
    const gated = await pgperf(['compare', results, '--fail-on', 'regression']);
    expect(gated.code).toBe(1);
    const lenient = await pgperf(['compare', results, '--fail-on', 'never']);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout.split('\n')[0]).toMatch(/^PASSED: .*regressions?.*not gating \(fail-on never\)/);

    const markdown = await pgperf(['compare', results, '--format', 'markdown']);
    expect(markdown.code).toBe(1);
    const first = decision.cells[0]!;
    const headline = markdown.stdout.split('\n')[1]!;
    expect(headline).toMatch(/^❌ \*\*\d (likely )?regressions?/);
    expect(headline).toContain(`smoke at ${first.clients} client${first.clients === 1 ? '' : 's'}, TPS -`);
    // The status names the same cell.
    expect(decision.status.description).toMatch(
      new RegExp(`^Failed: (likely )?regression smoke@${first.clients} TPS -`),
    );
  }, 120_000);
});
