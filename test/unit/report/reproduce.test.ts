/**
 * The "Reproduce" block (#21 item 5): the commands a hacker pastes to re-measure a decided cell. The script
 * is run by real bash (with `pgperf` a function that prints its arguments), so quoting is tested as the
 * shell reads it; the workload file it writes is parsed back by pgperf's own workload loader.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { reproductions } from '../../../src/core/report/reproduce.js';
import { reproduceSection, reproduceTargets } from '../../../src/core/report/markdown/reproduce-section.js';
import { loadWorkloads, parseWorkload, parseWorkloads } from '../../../src/drivers/load-workload.js';
import { renderMailReport } from '../../../src/core/report/mail/plain-text-mail.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import type { BuildRecord, RunResult } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { designSequential } from '../../../src/core/compare/analysis/adaptive.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'pgperf-unit-reproduce-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BASE_SHA = 'a'.repeat(40);
const HEAD_SHA = 'b'.repeat(40);

/** A run where head loses 10% at 64 clients only, with built arms and a resolved workload. */
function regressedRun(name = 'select-only', script?: string): RunResult {
  const result = syntheticRun({
    seed: 5,
    rounds: 10,
    workloads: { [name]: [1, 8, 64] },
    effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.9 : 1),
  });
  const workloadYaml = script
    ? `name: w\ntool: pgbench\nscripts: [{ file: ${JSON.stringify(script)} }]\nclients: [1, 8, 64]\nscale: 3\nduration: 30\n`
    : `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 8, 64]\nscale: 3\nduration: 30\n`;
  // The name as the results document holds it: a stored document may hold any string.
  result.workloads[name] = { ...parseWorkload(workloadYaml, 'w.yml'), name };
  const build = (sha: string, patches: BuildRecord['patches']) =>
    ({ repo: '/runner/cache/mirror', ref: 'master', sha, patches }) as unknown as BuildRecord;
  result.arms[0]!.build = build(BASE_SHA, []);
  result.arms[1]!.build = build(HEAD_SHA, [
    { file: '/runner/work/v3-0001-btree fix.patch', sha256: 'c'.repeat(64) },
  ]);
  result.source = { repository: 'postgres/postgres' };
  result.analysis = { alpha: 0.05, thresholdPct: 2, metric: 'tps' };
  result.plan.seed = 4242;
  return result;
}

/** Runs the script under bash with `pgperf` printing its arguments one per line; returns them and the file. */
function runScript(script: string, file: string): { args: string[]; written: string } {
  const dir = mkdtempSync(path.join(tmp, 'sh-'));
  const out = execFileSync(
    'bash',
    ['-c', `set -euo pipefail\npgperf() { printf '%s\\n' "$@"; }\n${script}`],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  return { args: out.trimEnd().split('\n'), written: readFileSync(path.join(dir, file), 'utf8') };
}

describe('the Reproduce block', () => {
  it('names only the decided cells, and its command re-runs them with the same commits, patch, seed and analysis', () => {
    const result = regressedRun();
    const c = compareRun(result);
    const decision = decideRun(result, c);
    expect(decision.cells.find((x) => x.clients === 64)!.verdict).toBe('regression');
    expect(reproduceTargets(decision)).toEqual([{ workload: 'select-only', clients: [64] }]);

    const [r] = reproductions(result, reproduceTargets(decision));
    const { args, written } = runScript(r!.script, r!.file);
    expect(args).toEqual([
      'run',
      '--repo',
      'https://github.com/postgres/postgres.git',
      '--base',
      BASE_SHA,
      '--head',
      HEAD_SHA,
      '--head-patch',
      'v3-0001-btree fix.patch',
      '--workload',
      'reproduce-select-only.yml',
      '--seed',
      '4242',
      '--order',
      'abba',
      '--threshold',
      '2',
      '--alpha',
      '0.05',
    ]);
    // The file is the workload as it ran (defaults applied), narrowed to the decided cell.
    const back = parseWorkload(written, r!.file);
    expect(back).toEqual({ ...(result.workloads['select-only'] as object), clients: [64] });
    // A reader sees one flag per line.
    expect(r!.script).toContain(`\\\n  --head ${HEAD_SHA} \\\n`);
  });

  it('quotes hostile names so the shell reads them as they are, and names the scripts to copy', () => {
    const name = "it's $(rm -rf ~) ```x```";
    const result = regressedRun(name, "/runner/w/q'uote $HOME.sql");
    const decision = decideRun(result, compareRun(result));
    const [r] = reproductions(result, reproduceTargets(decision));
    expect(r!.scriptFiles).toEqual(["q'uote $HOME.sql"]);
    const { args, written } = runScript(r!.script, r!.file);
    expect(args[args.indexOf('--workload') + 1]).toBe(r!.file);
    expect(r!.file).toMatch(/^reproduce-[A-Za-z0-9_.-]+\.yml$/);
    expect(written).toContain("q'uote $HOME.sql");
    expect(written).toContain(name);
    const section = reproduceSection(result, decision).join('\n');
    // The fence is longer than the backtick run inside, so the block cannot be closed early.
    expect(section).toMatch(/^````sh$/m);
  });

  it('appears in the PR comment for a regression, and not when nothing changed', () => {
    const result = regressedRun();
    const c = compareRun(result);
    const md = renderMarkdownReport({
      result,
      comparison: c,
      decision: decideRun(result, c),
      commentId: 'x',
    });
    expect(md).toContain('<summary>Reproduce select-only at 64 client(s) with the CLI</summary>');
    // Where the printed `pgperf` comes from (doc-commands.int.test.ts runs such a block that way).
    expect(md).toContain('In a clone of pgperf, after `npm run quickstart` (it puts `pgperf` on the PATH):');
    expect(md).toContain(`--head ${HEAD_SHA}`);

    const same = syntheticRun({ seed: 5, rounds: 10, workloads: { tpcb: [1, 8] } });
    const sc = compareRun(same);
    const quiet = renderMarkdownReport({
      result: same,
      comparison: sc,
      decision: decideRun(same, sc),
      commentId: 'x',
    });
    expect(quiet).not.toContain('Reproduce');
  });

  it('repeats the adaptive design (budget, looks, spending, pass α) and a confirmation block of its own size', () => {
    const result = regressedRun();
    result.adaptive = {
      plan: designSequential({ schedule: [6, 12, 18], spending: 'pocock', passAlpha: 0.2, alpha: 0.05 }),
      looks: [],
    };
    result.confirmation = { rounds: 4, seed: 1, cells: [], samples: [] };
    const [r] = reproductions(result, [{ workload: 'select-only', clients: [64] }]);
    const { args } = runScript(r!.script, r!.file);
    expect(args.slice(args.indexOf('--max-rounds'))).toEqual([
      '--max-rounds',
      '18',
      '--schedule',
      '6,12,18',
      '--spending',
      'pocock',
      '--pass-alpha',
      '0.2',
      '--confirm-rounds',
      '4',
    ]);
    // Every flag it writes is one `pgperf run` takes.
    const help = execFileSync('node', [path.join(ROOT, 'dist/cli.js'), 'run', '--help'], {
      encoding: 'utf8',
    });
    for (const flag of args.filter((a) => a.startsWith('--'))) expect(help).toContain(flag);
  });

  it('uses the bin dirs when the arms were not built by pgperf', () => {
    const result = regressedRun();
    delete result.arms[0]!.build;
    const [r] = reproductions(result, [{ workload: 'select-only', clients: [64] }]);
    const { args } = runScript(r!.script, r!.file);
    expect(args.slice(0, 5)).toEqual(['run', '--arm', 'base=/opt/base/bin', '--arm', 'head=/opt/head/bin']);
  });
});

/**
 * The block's workload file is what `pgperf run --workload` loads (loadWorkloads, the CLI's loader) as the
 * workload that ran (#39 items 1 and 2): the results record the workload as the loader resolved it, whose
 * instruction threshold (`thresholdPct`) and matrix combination name (`mx[a=1]`) no file may write.
 */
describe('the Reproduce workload loads back as the workload that ran', () => {
  /** The run with `recorded` as its one workload, regressed at 64 clients. */
  function runOf(recorded: { name: string }): RunResult {
    const result = regressedRun(recorded.name);
    result.workloads[recorded.name] = recorded;
    return result;
  }

  /** Every Reproduce script of the run: the PR comment's, the mail's (folded at 72 columns) and the markdown's. */
  function scripts(result: RunResult): Array<{ script: string; file: string }> {
    const decision = decideRun(result, compareRun(result));
    const targets = reproduceTargets(decision);
    expect(targets).toHaveLength(1);
    const [plain] = reproductions(result, targets);
    const [narrow] = reproductions(result, targets, { width: 72 });
    const mail = renderMailReport(reportInputOf(result, compareRun(result)));
    const lines = mail.split('\n');
    const start = lines.findIndex((l) => l.startsWith('cat > '));
    const mailScript = lines.slice(start, lines.indexOf('', start)).join('\n');
    return [plain!, narrow!, { script: mailScript, file: plain!.file }];
  }

  /** The workloads `pgperf run --workload FILE` loads from the file the script writes. */
  async function loadedBack(script: string, file: string) {
    const dir = mkdtempSync(path.join(tmp, 'load-'));
    execFileSync('bash', ['-c', `set -euo pipefail\npgperf() { :; }\n${script}`], { cwd: dir });
    return loadWorkloads(path.join(dir, file), { what: '--workload' });
  }

  it.each([
    [
      'instructions with settings of their own',
      'instructions: { repetitions: 5, threshold: 2.5, long: 2000 }',
    ],
    ['instructions: true (the defaults)', 'instructions: true'],
  ])('an instruction-counting workload: %s', async (_name, field) => {
    const recorded = parseWorkload(
      `name: counted\ntool: pgbench\nbuiltin: select-only\nclients: [1, 8, 64]\nscale: 3\n${field}\n`,
      'w.yml',
    );
    expect(recorded.instructions).toHaveProperty('thresholdPct');
    for (const { script, file } of scripts(runOf(recorded))) {
      expect(script).not.toContain('thresholdPct');
      const back = await loadedBack(script, file);
      expect(back).toEqual([{ ...recorded, clients: [64] }]);
    }
  });

  it('one combination of a settings matrix: the base name and a matrix of its values, named as it ran', async () => {
    const all = parseWorkloads(
      [
        'name: mx',
        'tool: pgbench',
        'builtin: tpcb-like',
        'clients: [1, 8, 64]',
        'settings: { shared_buffers: 64MB }',
        'matrix: { wal_compression: [off, lz4], max_wal_size: [1GB, 4GB], commit_delay: [0, 10] }',
      ].join('\n'),
      'mx.yml',
    );
    const recorded = all.find((w) => w.name === 'mx[wal_compression=lz4,max_wal_size=1GB,commit_delay=10]')!;
    expect(recorded.settings).toEqual({
      shared_buffers: '64MB',
      wal_compression: 'lz4',
      max_wal_size: '1GB',
      commit_delay: 10,
    });
    for (const { script, file } of scripts(runOf(recorded))) {
      expect(script).not.toMatch(/^name: .*\[/m);
      const back = await loadedBack(script, file);
      // One workload, that combination, under the name the results and the history know it by.
      expect(back).toEqual([{ ...recorded, clients: [64] }]);
    }
  });

  it('a combination too long for a file name: the longest name and long values still write a file that loads back', async () => {
    // 64 characters of name and settings of 100-character values: a combination name of 400 characters,
    // past the 255 bytes of a file name.
    const name = 'n'.repeat(64);
    const value = 'v'.repeat(100);
    const all = parseWorkloads(
      [
        `name: ${name}`,
        'tool: pgbench',
        'builtin: select-only',
        'clients: [1, 8, 64]',
        `matrix: { application_name: [${value}], cluster_name: [${value}, c2], search_path: [${value}] }`,
      ].join('\n'),
      'long.yml',
    );
    const recorded = all.find((w) => w.name.includes(`cluster_name=${value}`))!;
    expect(recorded.name.length).toBeGreaterThan(255);
    for (const { script, file } of scripts(runOf(recorded))) {
      expect(file.length).toBeLessThanOrEqual(255);
      expect(file).toMatch(/^reproduce-n{64}_[A-Za-z0-9_.-]+-[0-9a-f]{16}\.yml$/);
      const back = await loadedBack(script, file);
      expect(back).toEqual([{ ...recorded, clients: [64] }]);
    }
  });

  it('a name with brackets that is no combination of its settings stays as it is', async () => {
    const recorded = { ...parseWorkload(minimalYaml, 'w.yml'), name: 'w[jit=off]' };
    const [r] = reproductions(runOf(recorded), [{ workload: recorded.name, clients: [64] }]);
    expect(r!.script).toContain('name: w[jit=off]');
  });
});

const minimalYaml = 'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 8, 64]\n';
