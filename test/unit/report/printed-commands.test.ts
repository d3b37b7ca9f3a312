/**
 * Every command a report prints runs as printed (#39 "What to build" 1): for one synthetic run of each kind
 * pgperf makes (instruction counts beside the rounds and deciding alone, a settings matrix, plans, a cold
 * start, a commitfest entry, sysbench, a stored baseline), the Reproduce scripts of the PR comment and of
 * the mail are pasted into bash, and the `pgperf run` they call is parsed by the real `run` command with
 * every workload file loaded by the real loader: nothing is measured, and a refusal (what exits 2) fails
 * the test. The demo's next steps are run for real in test/unit/cli/demo-next.test.ts, the docs' commands
 * in test/integration/doc-commands.int.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analysisFromFlags } from '../../../src/adapters/cli/analysis-flags.js';
import { armOptionsOf, runCommand } from '../../../src/adapters/cli/commands/run.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { renderMailReport } from '../../../src/core/report/mail/plain-text-mail.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import type { Workload } from '../../../src/drivers/workload.js';
import { loadWorkloads, parseWorkloads } from '../../../src/drivers/load-workload.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { plansRecord } from '../../../testkit/plans-record.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { ROOT } from '../../helpers/cli.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const tmp = useTmpDir('pgperf-unit-printed-');

const shipped = async (name: string) =>
  loadWorkloads(path.join(ROOT, 'workloads', `${name}.yml`), { what: '--workload' });

/** A run of `workload` where head loses 10% at its last client count; built arms, commits recorded. */
function runOf(workload: Workload): RunResult {
  const last = workload.clients.at(-1)!;
  const result = syntheticRun({
    seed: 5,
    rounds: 10,
    workloads: { [workload.name]: workload.clients },
    effect: (arm, _, clients) => (arm === 'head' && clients === last ? 0.9 : 1),
  });
  result.workloads[workload.name] = workload;
  result.analysis = { alpha: 0.05, thresholdPct: 2, metric: 'tps' };
  return result;
}

/** The kinds of run, each as the results document it leaves. */
const KINDS: Array<[string, () => Promise<RunResult>]> = [
  ['plain (bin dirs)', async () => runOf((await shipped('smoke'))[0]!)],
  [
    'instructions beside the rounds',
    async () => {
      const result = runOf({ ...(await shipped('smoke'))[0]!, name: 'counted' });
      result.workloads.counted = {
        ...result.workloads.counted!,
        instructions: { ...INSTRUCTIONS },
      } as Workload;
      result.instructions = instructionRecord({ workload: 'counted', seed: 5, effect: 0.15, cv: 0.0005 });
      return result;
    },
  ],
  [
    '--metric instructions',
    async () => {
      const result = runOf({ ...(await shipped('smoke'))[0]!, name: 'counted', clients: [1] });
      result.samples = [];
      result.plan.rounds = 0;
      result.analysis = { alpha: 0.05, thresholdPct: 2, metric: 'instructions' };
      result.instructions = instructionRecord({ workload: 'counted', seed: 5, effect: 0.15, cv: 0.0005 });
      return result;
    },
  ],
  [
    'a settings matrix',
    async () => {
      const all = parseWorkloads(
        'name: mx\ntool: pgbench\nbuiltin: tpcb-like\nclients: [1, 4]\nmatrix: { wal_compression: [off, lz4] }\n',
        'mx.yml',
      );
      return runOf(all.find((w) => w.name === 'mx[wal_compression=lz4]')!);
    },
  ],
  [
    'plans',
    async () => {
      const result = runOf({ ...(await shipped('smoke'))[0]!, plans: true } as Workload);
      result.plans = plansRecord('smoke');
      return result;
    },
  ],
  ['a cold start', async () => runOf((await shipped('select-only-cold'))[0]!)],
  ['sysbench', async () => runOf((await shipped('sysbench-smoke'))[0]!)],
  [
    'a commitfest entry, built from commits',
    async () => {
      const result = runOf((await shipped('smoke'))[0]!);
      const build = (sha: string) => ({ repo: '/runner/cache/mirror', ref: 'master', sha, patches: [] });
      result.arms[0]!.build = build('a'.repeat(40)) as never;
      result.arms[1]!.build = build('b'.repeat(40)) as never;
      result.source = { commitfest: { id: 4711, branch: 'cf/4711' } };
      return result;
    },
  ],
  [
    'a stored baseline',
    async () => {
      const result = runOf((await shipped('smoke'))[0]!);
      result.baseline = {
        runId: '20261123T132303Z-a92636b5',
        storedAt: '2026-11-23T13:23:03Z',
        measuredAt: '2026-11-23T13:20:00Z',
        ageDays: 2,
        sentinel: { status: 'steady', reason: 'sentinel: steady', onDrift: 'inconclusive' },
      };
      return result;
    },
  ],
];

const INSTRUCTIONS = { short: 200, long: 1200, warmup: 200, repetitions: 3, thresholdPct: 1 };

/** The Reproduce scripts of the PR comment (```sh blocks under a Reproduce summary) and of the mail. */
function scripts(result: RunResult): string[] {
  const input = reportInputOf(result, analyse(result));
  const found: string[] = [];
  const markdown = renderMarkdownReport({ ...input, commentId: 'default' }).split('\n');
  for (let i = 0; i < markdown.length; i++) {
    if (!markdown[i]!.startsWith('<details><summary>Reproduce')) continue;
    const open = markdown.findIndex((l, j) => j > i && /^`{3,}sh$/.test(l));
    const fence = markdown[open]!.replace('sh', '');
    found.push(markdown.slice(open + 1, markdown.indexOf(fence, open + 1)).join('\n'));
  }
  const mail = renderMailReport(input).split('\n');
  for (let i = 0; i < mail.length; i++) {
    if (!mail[i]!.startsWith('cat > ')) continue;
    const end = mail.indexOf('', i);
    found.push(mail.slice(i, end < 0 ? undefined : end).join('\n'));
  }
  return found;
}

/** `pgperf ARGS` of a pasted script, as bash hands them over (one per NUL), with the files it wrote. */
function pasted(script: string): { calls: string[][]; dir: string } {
  const dir = mkdtempSync(path.join(tmp(), 'paste-'));
  const out = execFileSync(
    'bash',
    ['-c', `set -euo pipefail\npgperf() { printf '%s\\0' "$@"; printf '\\n\\0'; }\n${script}`],
    { cwd: dir, encoding: 'utf8' },
  );
  const calls = out
    .split('\n\0')
    .filter((c) => c !== '')
    .map((c) => c.split('\0').filter((a, i, all) => i < all.length - 1 || a !== ''));
  return { calls, dir };
}

/**
 * What `pgperf run ARGS` would refuse before measuring: the real command's flags and value parsers, its
 * workload files through the real loader, the arms and the analysis settings; undefined when accepted.
 */
async function refusal(args: string[], cwd: string): Promise<string | undefined> {
  let problem: string | undefined;
  const command = runCommand()
    .exitOverride()
    .configureOutput({ writeErr: (m) => (problem = m.trim()), writeOut: () => {} });
  command.action(async (flags: Parameters<typeof armOptionsOf>[0] & { workload: string[] }) => {
    for (const ref of flags.workload) {
      // A file in the script's directory (pgperf runs there), else a shipped workload's name.
      const file = path.resolve(cwd, ref);
      await loadWorkloads(existsSync(file) ? file : ref, { what: '--workload' });
    }
    armOptionsOf(flags);
    analysisFromFlags(flags as never);
  });
  try {
    await command.parseAsync(args, { from: 'user' });
    return undefined;
  } catch (e) {
    return problem ?? (e instanceof Error ? e.message : String(e));
  }
}

describe('the commands the reports print are accepted by pgperf run', () => {
  it.each(KINDS)('%s', async (_kind, make) => {
    const result = await make();
    const found = scripts(result);
    // The comment's block and the mail's, at least.
    expect(found.length).toBeGreaterThanOrEqual(2);
    for (const script of found) {
      const { calls, dir } = pasted(script);
      expect(calls.length).toBeGreaterThan(0);
      for (const [sub, ...args] of calls) {
        expect(sub).toBe('run');
        expect(await refusal(args, dir), `${script}\n`).toBeUndefined();
      }
    }
  });

  it('fails on a command pgperf run refuses (what exits 2)', async () => {
    const dir = mkdtempSync(path.join(tmp(), 'refused-'));
    const run = (...more: string[]) => refusal(['--arm', 'a=/x', '--arm', 'b=/y', ...more], dir);
    expect(await run('--workload', 'smoke', '--cleints', '1')).toMatch(/unknown option '--cleints'/);
    expect(await run('--workload', 'missing.yml')).toMatch(/missing\.yml/);
    // What the Reproduce block of an instruction run once wrote (#39 item 1): the recorded key, refused.
    writeFileSync(
      path.join(dir, 'w.yml'),
      'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\ninstructions: { thresholdPct: 1 }\n',
    );
    expect(await run('--workload', 'w.yml')).toMatch(/thresholdPct/);
    expect(await run('--workload', 'smoke')).toBeUndefined();
  });
});
