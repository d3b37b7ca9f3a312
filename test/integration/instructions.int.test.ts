/**
 * The instruction mode on real builds (PostgreSQL 18.6 from the build tests' cached source repository,
 * testkit/pg-source.ts): one `pgperf run` with three arms, base, a head whose int4in (called once per
 * select-only transaction to read the bound key) spins 1000 extra iterations, and a head that only adds a
 * comment to the same function. Counted with cachegrind (forced): in one round of 3 repetitions the extra
 * work is a regression on instructions with per-arm CV <= 0.5 %, its differential profile names int4in,
 * and the comment-only patch is no-change. The same with perf counting instructions:u runs only on a
 * runner with a hardware PMU (this VM has none: skipped, with the reason in its name; the perf path itself
 * is driven with a software event in perf-counter.int.test.ts).
 *
 * With default flags (no instruction or plan flag) one run of base, spin, comment and base with index scans
 * off: the counts are taken anyway and fail the spinning head, the comment-only head's counts are unchanged,
 * the index-scan head's changed plan is reported from plans taken on the counting servers, and
 * decision.json states what the answer cost.
 *
 * The three installs are built once into the test cache (/var/cache/pgperf-test; a few minutes cold on
 * 2 cores with a warm ccache), then found there.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPostgres } from '../../src/postgres/builds/build.js';
import { readPatches } from '../../src/postgres/builds/patches.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { probeCounters } from '../../src/postgres/instructions/counter.js';
import { preparePgSourceRepo, testCacheDir } from '../../testkit/pg-source.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { runMain } from '../helpers/main-in-process.js';
import { flags, onlyRunDocuments } from '../helpers/cli.js';
import type { Decision } from '../../src/core/compare/decision/decision.js';
import { instructionWorkloadFile, writeWorkloadFile } from '../helpers/workload-file.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { runExplainPhase } from '../../src/run/counted/explain-phase.js';

const BUILD_TIMEOUT_MS = 40 * 60_000;
const RUN_TIMEOUT_MS = 20 * 60_000;
const cacheDir = testCacheDir();
const fixture = (name: string) => new URL(`../fixtures/patches/${name}`, import.meta.url).pathname;
let tmp: string;
const bin: Record<'base' | 'spin' | 'comment', string> = { base: '', spin: '', comment: '' };

beforeAll(async () => {
  const pg18 = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', 'pg18') });
  const deps = { runner: nodeProcessRunner, logger: memoryLogger() };
  const build = async (label: string, patch?: string) =>
    (
      await buildPostgres(
        {
          label,
          repo: parseRepo(pg18.dir, process.cwd()),
          ref: pg18.baseRef,
          patches: patch ? await readPatches([fixture(patch)], '--patch') : [],
          extraOptions: [],
          cacheDir,
        },
        deps,
      )
    ).binDir;
  bin.base = await build('base');
  bin.spin = await build('spin', 'int4in-extra-work.patch');
  bin.comment = await build('comment', 'int4in-comment-only.patch');
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-instr-'));
  await chmod(tmp, 0o755);
}, BUILD_TIMEOUT_MS);

/**
 * One `pgperf run` of base, spin and comment on select-only at 1 client (one timed round, instructions in 3
 * repetitions) counted by `counter`: its exit, results document and decision.
 */
async function runThreeArms(counter: 'cachegrind' | 'perf', outName: string) {
  const out = path.join(tmp, outName);
  const ran = await runMain([
    'run',
    ...(['base', 'spin', 'comment'] as const).flatMap((arm) => ['--arm', `${arm}=${bin[arm]}`]),
    '--workload',
    await instructionWorkloadFile(tmp, 1, '{ repetitions: 3 }'),
    '--instruction-counter',
    counter,
    // The counts alone decide: no timed round, and no plan check refuses the one-round answer (no --force).
    '--metric',
    'instructions',
    '--out',
    out,
    '--tmp-dir',
    tmp,
    '--no-store',
  ]);
  const { file, result, decision } = await onlyRunDocuments(out);
  const cell = (head: string) => decision.cells.find((c) => c.head === head && c.metric === 'instructions')!;
  return { ran, file, result, decision, cell };
}

const probe = await probeCounters(nodeProcessRunner);

/**
 * The comment-only head's instruction cell: no change, or, where a loaded runner split its repetitions
 * into two groups (bistable counts: reported, not gated), absent from the gated cells and counted as
 * unstable; never failing either way.
 */
function expectUnchanged(cell: Decision['cells'][number] | undefined, decision: Decision): void {
  if (cell) expect(cell).toMatchObject({ verdict: 'no-change', failsGate: false });
  else expect(decision.counts.unstable).toBeGreaterThanOrEqual(1);
}

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('instructions per transaction on real builds', () => {
  it('valgrind is installed, so cachegrind counts wherever the CPU has no counter (this VM: none)', async () => {
    expect(probe.valgrind).toMatch(/^valgrind-3\./);
    if (!probe.hardware) expect(probe.hardwareWhy).toMatch(/instructions:u/);
  });

  it.skipIf(!probe.hardware)(
    'with a hardware PMU, perf counts the spinning head a regression and the comment-only head no-change (skipped here: this VM has none, `perf stat -e instructions:u` says <not supported>)',
    async () => {
      const { ran, result, cell } = await runThreeArms('perf', 'out-perf');
      expect(result.instructions!.counter).toBe('perf');
      expect(cell('spin')).toMatchObject({ verdict: 'regression', failsGate: true });
      expect(cell('comment')).toMatchObject({ verdict: 'no-change', failsGate: false });
      expect(ran.code).toBe(1);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'cachegrind decides the spinning head a regression and the comment-only head no-change, in one round',
    async () => {
      const { ran, file, result, decision, cell } = await runThreeArms('cachegrind', 'out');
      const record = result.instructions!;
      expect(record.counter).toBe('cachegrind');
      expect(record.failures).toEqual([]);
      expect(record.samples).toHaveLength(9);

      expect(cell('spin')).toMatchObject({
        verdict: 'regression',
        failsGate: true,
        id: 'select-only@1',
        evidence: 'instruction counts, 3 repetitions',
      });
      expect(cell('spin').deltaPct!).toBeGreaterThan(5);
      expectUnchanged(cell('comment'), decision);
      expect(ran.code).toBe(1); // the gate fails on the instruction regression
      // --metric instructions: one instruction round decided it, no timed round ran.
      expect(result.samples).toEqual([]);
      expect(result.plan.rounds).toBe(0);
      expect(ran.stdout.split('\n')[0]).toMatch(
        /^FAILED: 1 regression: spin: select-only at 1 client, instr\/tx \+/,
      );

      // Per-arm CV over the 3 repetitions: <= 0.5 %.
      for (const arm of ['base', 'spin', 'comment']) {
        const v = record.samples.filter((s) => s.arm === arm).map((s) => s.perTx);
        const mean = v.reduce((a, b) => a + b, 0) / v.length;
        const sd = Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / (v.length - 1));
        expect((100 * sd) / mean, `${arm}: ${v.join(', ')}`).toBeLessThanOrEqual(0.5);
      }

      // The differential profile names the function the patch changed, as the largest mover.
      const spinProfile = record.profiles.find((p) => p.head === 'spin')!;
      expect(spinProfile.movers[0]!.fn).toBe('int4in');
      expect(spinProfile.movers[0]!.deltaIrPerTx).toBeGreaterThan(1000);
      const tsv = await readFile(path.join(path.dirname(file), spinProfile.file), 'utf8');
      expect(tsv.split('\n')[3]).toMatch(/\tint4in\t/);
      expect(ran.stdout + ran.stderr).toMatch(/instructions: 1 workload\(s\) x 3 arms measured in \d+\.\d s/);
      // No server of the phase is left running.
      expect(processesMentioning(tmp)).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'with default flags: counted anyway, the spinning head fails on its counts, the comment-only one does not, the changed plan is named, and the cost is stated',
    async () => {
      const out = path.join(tmp, 'out-default');
      const workload = await writeWorkloadFile(
        tmp,
        'select-only-2.yml',
        [
          'name: select-only',
          'tool: pgbench',
          'builtin: select-only',
          'scale: 1',
          'clients: [2]',
          'duration: 2',
          'warmup: 0',
          'rounds: 3',
          '',
        ].join('\n'),
      );
      const ran = await runMain([
        'run',
        ...(['base', 'spin', 'comment'] as const).flatMap((arm) => ['--arm', `${arm}=${bin[arm]}`]),
        '--arm',
        `noidx=${bin.base}`,
        ...flags({
          set: ['noidx:enable_indexscan=off', 'noidx:enable_bitmapscan=off'],
          workload,
          out,
          tmpDir: tmp,
          noStore: true,
          force: true,
        }),
      ]);
      const { result, decision } = await onlyRunDocuments(out);
      const counts = (head: string) =>
        decision.cells.find((c) => c.head === head && c.metric === 'instructions')!;
      // Counted by default at 1 client (the timed cells run at 2), every arm; the seq-scan arm may be too
      // slow to count on a loaded runner, and then only it is left to its timed rounds.
      const noidxFailed = result.instructions!.failures.some((f) => f.arm === 'noidx' && f.offered);
      expect(new Set(result.instructions!.samples.map((x) => x.arm))).toEqual(
        new Set(['base', 'spin', 'comment', ...(noidxFailed ? [] : ['noidx'])]),
      );
      expect(result.instructions!.failures.filter((f) => f.arm !== 'noidx')).toEqual([]);
      expect(result.instructions!.notes.join('\n')).toMatch(/counted at 1 client \(its timed cells run 2\)/);
      expect(counts('spin')).toMatchObject({ verdict: 'regression', failsGate: true });
      // The changed code the workload runs: the spin patch's int4in, named from the counted runs' profiles.
      expect(result.instructions!.notes.join('\n')).toMatch(
        /select-only: \d+ of the [\d,]+ functions? whose code spin changed ran in its counted runs: [^\n]*\bint4in\b/,
      );
      expectUnchanged(counts('comment'), decision);
      expect(decision.cells.filter((c) => c.head === 'comment').every((c) => !c.failsGate)).toBe(true);
      expect(decision.outcome).toBe('failed');
      expect(ran.code).toBe(1);
      // The plans were taken on the counting servers (no flag), and the one that changed is named.
      const plans = result.plans!;
      expect(plans.failures).toEqual([]);
      expect(plans.stats).toEqual([]); // no pg_stat_statements run: that is --plans' extra servers
      const plan = (arm: string) => plans.plans.find((p) => p.arm === arm)!.plan!;
      expect(plan('base')).toMatch(/Index Only Scan|Index Scan/);
      expect(plan('comment')).toBe(plan('base'));
      expect(plan('noidx')).toMatch(/Seq Scan/);
      expect(ran.stdout).toMatch(/plan changed/i);
      // The answer's cost, in decision.json and on the terminal.
      expect(decision.cost).toMatchObject({ timedRounds: 3 });
      expect(decision.cost!.countedS).toBeGreaterThan(0);
      expect(decision.cost!.wallS).toBeGreaterThanOrEqual(
        decision.cost!.countedS + decision.cost!.timedS - 1,
      );
      expect(ran.stdout).toMatch(/answered in \S+: counted runs \S+, 3 timed rounds/);
      expect(processesMentioning(tmp)).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'explains a throughput change: the profile taken after the rounds names the function the patch changed',
    async () => {
      const runDir = path.join(tmp, 'explain');
      const workload = parseWorkload(
        ['name: select-only', 'tool: pgbench', 'builtin: select-only', 'scale: 1', 'clients: [8]', ''].join(
          '\n',
        ),
        'select-only.yml',
      );
      const logger = memoryLogger();
      const record = await runExplainPhase(
        [{ head: 'spin', workload: 'select-only', cells: ['select-only@8'] }],
        {
          arms: ['base', 'spin', 'comment'].map((label) => ({
            label,
            binDir: bin[label as keyof typeof bin],
            settings: {},
          })),
          workloads: [workload],
          runDir,
          tmpDir: tmp,
          dataChecksums: false,
        },
        { runner: nodeProcessRunner, logger },
      );
      expect(record!.failures).toEqual([]);
      // Only base and the head that changed were measured, once each.
      expect(record!.samples.map((x) => x.arm)).toEqual(['base', 'spin']);
      const profile = record!.profiles.find((p) => p.head === 'spin')!;
      expect(profile.file).toBe(path.join('explain', 'select-only.spin-vs-base.tsv'));
      expect(profile.movers[0]!.fn).toBe('int4in');
      expect(profile.movers[0]!.deltaIrPerTx).toBeGreaterThan(1000);
      expect(await readFile(path.join(runDir, profile.file), 'utf8')).toMatch(/\tint4in\t/);
      expect(logger.lines.join('\n')).toMatch(/explain: profiling select-only \(base vs spin\)/);
      expect(processesMentioning(tmp)).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
