/**
 * Every command a real comparison prints runs as printed (#39 "Done when"): two short real runs on
 * Debian's PostgreSQL cover the kinds of run pgperf makes, and what their reports print is pasted into
 * bash and executed (pgperf on the PATH as src/cli.ts through tsx), each exiting 0 or 1 (decided), never 2
 * (refused) nor a crash:
 * - one run, saved to a directory store, of a pgbench workload with a one-value settings matrix,
 *   `plans: true`, counted instruction runs and a cold start, and of a sysbench workload (base with a 10 ms
 *   commit_delay that every commit waits: a change no noise hides);
 * - a stored baseline: head alone, with that delay, against the sysbench workload's stored head.
 * For each, the Reproduce blocks of `compare --format markdown` (the PR comment's) and `--format mail` are
 * extracted; the two must hand pgperf the same arguments and write the same files (else both run), and each
 * distinct script runs in a directory of its own. Lines starting `next:` in any output run too (the demo's
 * are run in test/unit/cli/demo-next.test.ts). The parse-only check of synthetic runs of every kind is
 * test/unit/report/printed-commands.test.ts; the docs' commands run in doc-commands.int.test.ts.
 *
 * Not run here: a commitfest entry (`--cf`) builds PostgreSQL from a repository (minutes per commit, and its
 * Reproduce block builds both again): commitfest.int.test.ts runs --cf, printed-commands.test.ts parses
 * its Reproduce block.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import { installedBinDir, leftoverProcesses } from '../../testkit/postgres.js';
import { isolatedEnv } from '../helpers/cli.js';
import {
  pastedCalls,
  removePgperfShim,
  reproduceScripts,
  runPastedAsync,
  type Pasted,
} from '../helpers/printed-command.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const tmp = useTmpDir('pgperf-it-printed-', { killLeftovers: true });
afterAll(removePgperfShim);
const BIN = installedBinDir();
/**
 * Every commit waits 10 ms (commit_siblings 0): a change of the arm that has it no noise can hide. The runs
 * use a 50 % threshold so that this runner's noise (an A/A spread of 20 % under load) never marks the cell
 * unstable, which would leave it ungated and print no Reproduce block.
 */
const DELAY = (arm: string) => `--set ${arm}:commit_delay=10000 --set ${arm}:commit_siblings=0`;

/** Short, one client, 5 rounds of a second: the fewest a decision at α 0.05 allows. */
const PGBENCH = `name: mx
tool: pgbench
builtin: tpcb-like
scale: 1
clients: [1]
duration: 1
warmup: 0
rounds: 5
plans: true
coldStart: true
instructions: { short: 20, long: 120, warmup: 20, repetitions: 1 }
matrix: { wal_compression: [lz4] }
`;
const SYSBENCH = `name: sb
tool: sysbench
script: oltp_write_only
tables: 1
tableSize: 1000
clients: [1]
duration: 1
warmup: 0
rounds: 5
`;

/** A decided outcome: 0 passed (or pending), 1 failed. 2 is a refusal, anything else a crash or a signal. */
const DECIDED = [0, 1];

interface Made {
  kind: string;
  run: Pasted;
  result: RunResult;
  file: string;
}

let env: NodeJS.ProcessEnv;
const made: Made[] = [];

/** `pgperf ARGS` in the test's directory; the results document of the one run under `out`. */
async function pgperfRun(kind: string, args: string, out: string): Promise<Made> {
  const run = await runPastedAsync(`pgperf run ${args} --out ${out} --tmp-dir ${tmp()}`, tmp(), env);
  expect(DECIDED, `${kind}: exit ${run.code}\n${run.stdout}\n${run.stderr}`).toContain(run.code);
  const [dir] = await readdir(path.join(tmp(), out));
  const file = path.join(tmp(), out, dir!, 'results.json');
  const result = JSON.parse(await readFile(file, 'utf8')) as RunResult;
  return { kind, run, result, file };
}

beforeAll(async () => {
  // Clusters of the printed commands (no --tmp-dir in them) land in this test's directory too.
  env = { ...isolatedEnv(path.join(tmp(), 'home')), TMPDIR: tmp() };
  await writeFile(path.join(tmp(), 'mx.yml'), PGBENCH, { mode: 0o644 });
  await writeFile(path.join(tmp(), 'sb.yml'), SYSBENCH, { mode: 0o644 });
  const store = path.join(tmp(), 'store');
  made.push(
    await pgperfRun(
      'pgbench (matrix, plans, instructions, cold start) and sysbench',
      `--arm base=${BIN} --arm head=${BIN} ${DELAY('base')} --workload mx.yml --workload sb.yml --seed 3 --confirm-rounds 0 --threshold 50 --store ${store}`,
      'out-both',
    ),
  );
  // Head alone, slower than the stored run's head (the baseline); its settings differ from the stored ones.
  made.push(
    await pgperfRun(
      'stored baseline',
      `--arm head=${BIN} ${DELAY('head')} --allow-fingerprint-mismatch --baseline stored --workload sb.yml --seed 4 --confirm-rounds 0 --threshold 50 --store ${store}`,
      'out-stored',
    ),
  );
}, 600_000);

describe('the commands real comparisons print run as printed', () => {
  it('the runs are of the kinds this test is for', () => {
    const [both, stored] = made.map((m) => m.result);
    expect(Object.keys(both!.workloads).sort()).toEqual(['mx[wal_compression=lz4]', 'sb']);
    expect(both!.workloads['mx[wal_compression=lz4]']).toMatchObject({ plans: true, coldStart: true });
    expect(both!.workloads.sb).toMatchObject({ tool: 'sysbench' });
    expect(both!.instructions?.samples.length).toBeGreaterThan(0);
    expect(both!.plans?.plans.length).toBeGreaterThan(0);
    expect(stored!.baseline?.runId).toMatch(/\S/);
  });

  it('the markdown and the mail Reproduce blocks of each run say the same, and each distinct one runs', async () => {
    let n = 0;
    for (const { kind, file } of made) {
      const blocks: Record<'markdown' | 'mail', string[]> = { markdown: [], mail: [] };
      for (const format of ['markdown', 'mail'] as const) {
        const report = await runPastedAsync(`pgperf compare ${file} --format ${format}`, tmp(), env);
        expect(DECIDED, `${kind} --format ${format}: ${report.stderr}`).toContain(report.code);
        blocks[format] = reproduceScripts(report.stdout, format);
      }
      // A decided change in every run: each prints a block to run.
      expect(blocks.markdown.length, `${kind}: no Reproduce block`).toBeGreaterThan(0);
      expect(blocks.mail.length, kind).toBe(blocks.markdown.length);
      for (const [i, markdown] of blocks.markdown.entries()) {
        const mail = blocks.mail[i]!;
        const parsed = async (script: string) => {
          const dir = path.join(tmp(), `parse-${n++}`);
          await mkdir(dir);
          return pastedCalls(script, dir);
        };
        const same = JSON.stringify(await parsed(markdown)) === JSON.stringify(await parsed(mail));
        for (const script of same ? [markdown] : [markdown, mail]) {
          const dir = path.join(tmp(), `reproduce-${n++}`);
          await mkdir(dir);
          const ran = await runPastedAsync(script, dir, env);
          expect(DECIDED, `${kind}: exit ${ran.code}\n${script}\n${ran.stderr}`).toContain(ran.code);
          expect(ran.stdout).toMatch(/^(PASSED|FAILED|PENDING): /);
          expect(ran.stderr).not.toMatch(/internal error|command not found/);
          await runNextLines(kind, ran);
        }
      }
    }
    expect(leftoverProcesses(tmp())).toEqual([]);
  }, 900_000);

  it('every "next:" line the runs print runs', async () => {
    for (const m of made) await runNextLines(m.kind, m.run);
  }, 300_000);
});

/** Runs each `next: COMMAND` line of `printed`'s output (its `# ...` is the shell's comment). */
async function runNextLines(kind: string, printed: Pasted): Promise<void> {
  for (const line of printed.stdout.split('\n').filter((l) => l.startsWith('next: '))) {
    const ran = await runPastedAsync(line.slice('next: '.length), tmp(), env);
    expect(DECIDED, `${kind}: ${line}: exit ${ran.code}\n${ran.stderr}`).toContain(ran.code);
  }
}
