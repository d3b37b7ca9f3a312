/**
 * The scheduled commitfest workflow of docs/action.md ("Commitfest entries"): its `moved` step, run for real
 * as GitHub runs a step (`bash --noprofile --norc -eo pipefail`) against a local repository standing in for
 * cfbot's mirror (CFBOT_REPO, real `git ls-remote`), sweep after sweep with the list the cache would carry
 * between them. It must schedule the new and moved entries only (at most MAX_ENTRIES, the rest the next
 * time), skip those whose head did not move, forget deleted branches, and give `[]` when nothing moved
 * (the bench job's `if:` then skips the matrix). The bench job's shape is read from the same block, and the
 * save job's step runs for real too, with this repository's built CLI (dist/cli.js) and a local data branch.
 * actionlint.test.ts and workflows.test.ts check the whole workflow and its pgperf inputs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, yamlBlocks } from '../../helpers/doc-pages.js';
import { TEST_GIT_ENV } from '../../helpers/git.js';

/** A valid results file (test/fixtures/results/README.md says where it comes from). */
const RESULTS_FIXTURE = path.join(REPO_ROOT, 'test/fixtures/results/pgperf-15-smoke-select-only.json');

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  env: Record<string, string | number>;
  jobs: Record<
    string,
    {
      if?: string;
      needs?: string | string[];
      permissions?: Record<string, string>;
      steps: Step[];
      strategy?: { matrix: Record<string, unknown> };
    }
  >;
}

const block = yamlBlocks('docs/action.md').find(
  (b) => b.section === 'Commitfest entries' && b.text.includes('commitfest-entry:'),
);
const workflow = parse(block?.text ?? '') as Workflow;
const work = mkdtempSync(path.join(os.tmpdir(), 'pgperf-cf-workflow-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const mirror = path.join(work, 'cfbot.git');
const sweepDir = path.join(work, 'sweep');
const GIT_ENV = TEST_GIT_ENV;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', mirror, ...args], { env: GIT_ENV, encoding: 'utf8', input: '' }).trim();
/** A new commit on `branch` (created from master when new): its head moved. */
const commitOn = (branch: string, message: string) => {
  const known = git('for-each-ref', '--format=%(objectname)', `refs/heads/${branch}`);
  const parent = known || git('rev-parse', 'master');
  const sha = git('commit-tree', `${parent}^{tree}`, '-p', parent, '-m', message);
  git('update-ref', `refs/heads/${branch}`, sha);
};

/** One sweep of the `moved` step in `sweepDir` (where the cache keeps cf-seen.txt): the entries it schedules. */
function sweep(maxEntries: number): string[] {
  const step = workflow.jobs.moved!.steps.find((s) => s.id === 'moved')!;
  const script = path.join(work, 'moved.sh');
  writeFileSync(script, step.run!);
  const output = path.join(work, 'github-output');
  writeFileSync(output, '');
  execFileSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: sweepDir,
    env: { ...GIT_ENV, CFBOT_REPO: mirror, MAX_ENTRIES: String(maxEntries), GITHUB_OUTPUT: output },
  });
  const line = readFileSync(output, 'utf8').trim();
  expect(line).toMatch(/^entries=\[.*\]$/);
  return JSON.parse(line.slice('entries='.length)) as string[];
}

/**
 * The save job's run step, run for real (bash -eo pipefail, as GitHub runs it) in `dir`, which holds what its
 * steps before it leave: `pgperf` (this repository's built CLI), `data` (a clone of the data branch) and `cf`
 * (the downloaded artifacts). Its stdout.
 */
function save(dir: string): string {
  const step = workflow.jobs.save!.steps.find((s) => s.run)!;
  const script = path.join(work, 'save.sh');
  writeFileSync(script, step.run!);
  return execFileSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: dir,
    env: { ...GIT_ENV, GITHUB_RUN_ID: '123' },
    encoding: 'utf8',
  });
}

describe('docs/action.md: the scheduled commitfest workflow', () => {
  it('is there: the bench job runs one entry per matrix job, only when some moved', () => {
    expect(block, 'a ```yaml block under "Commitfest entries" with commitfest-entry').toBeDefined();
    expect(workflow.env.CFBOT_REPO).toBe('https://github.com/postgresql-cfbot/postgresql.git');
    const bench = workflow.jobs.bench!;
    expect(bench.needs).toBe('moved');
    expect(bench.if).toBe("needs.moved.outputs.entries != '[]'");
    expect(bench.strategy?.matrix.entry).toBe('${{ fromJSON(needs.moved.outputs.entries) }}');
    const pgperf = bench.steps.find((s) => s.uses?.startsWith('pgperf/pgperf@'));
    expect(pgperf?.with).toMatchObject({ 'commitfest-entry': '${{ matrix.entry }}' });
    // It builds anyone's patch: read-only, nothing saved from it (workflow-rules.test.ts checks the rule).
    expect(bench.permissions).toEqual({ contents: 'read' });
    expect(pgperf?.with).not.toHaveProperty('store-branch');
    // The save job, after every entry, imports each entry's results into its own history on the branch.
    const save = workflow.jobs.save!;
    expect(save.needs).toEqual(['moved', 'bench']);
    expect(save.permissions).toEqual({ contents: 'write' });
    expect(save.steps.some((s) => s.uses?.startsWith('pgperf/pgperf@'))).toBe(false);
    expect(save.steps.map((s) => s.run ?? '').join('\n')).toContain(
      'node pgperf/dist/cli.js store import "$dir/results.json" --store "data/commitfest/$id"',
    );
  });

  it("the save job imports each entry's results into its own history on the data branch, and refuses a bad one", () => {
    const origin = path.join(work, 'origin.git');
    const dir = path.join(work, 'save');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=pgperf-data', origin], {
      env: GIT_ENV,
    });
    execFileSync('git', ['clone', '--quiet', origin, path.join(dir, 'data')], { env: GIT_ENV });
    const inData = (...args: string[]) =>
      execFileSync('git', ['-C', path.join(dir, 'data'), ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();
    inData('commit', '--quiet', '--allow-empty', '-m', 'data branch');
    inData('push', '--quiet', 'origin', 'HEAD:pgperf-data');
    mkdirSync(path.join(dir, 'pgperf', 'dist'), { recursive: true });
    symlinkSync(path.join(REPO_ROOT, 'dist', 'cli.js'), path.join(dir, 'pgperf', 'dist', 'cli.js'));
    const artifact = (name: string, text: string) => {
      mkdirSync(path.join(dir, 'cf', name), { recursive: true });
      writeFileSync(path.join(dir, 'cf', name, 'results.json'), text);
    };
    artifact('pgperf-cf-4711', readFileSync(RESULTS_FIXTURE, 'utf8'));
    artifact('pgperf-cf-52', '{"not": "a results file"}');
    artifact('pgperf-cf-x', readFileSync(RESULTS_FIXTURE, 'utf8'));

    const out = save(dir);
    expect(out).toContain('::warning::commitfest entry 52: its results were not saved');
    const files = execFileSync('git', ['--git-dir', origin, 'ls-tree', '-r', '--name-only', 'pgperf-data'], {
      encoding: 'utf8',
    });
    expect(files.trim().split('\n').sort()).toEqual([
      'commitfest/4711/index/20261123T132303Z-a92636b5.json',
      'commitfest/4711/runs/20261123T132303Z-a92636b5.json',
    ]);
    // A sweep whose entries all failed before writing results: no commit, no push.
    const head = execFileSync('git', ['--git-dir', origin, 'rev-parse', 'pgperf-data'], { encoding: 'utf8' });
    rmSync(path.join(dir, 'cf'), { recursive: true });
    artifact('pgperf-cf-4712', '');
    save(dir);
    expect(execFileSync('git', ['--git-dir', origin, 'rev-parse', 'pgperf-data'], { encoding: 'utf8' })).toBe(
      head,
    );
  });

  it('runs the new and moved entries only, MAX_ENTRIES at a time, and forgets deleted branches', () => {
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=master', mirror], { env: GIT_ENV });
    execFileSync('mkdir', ['-p', sweepDir]);
    const empty = git('mktree');
    git('update-ref', 'refs/heads/master', git('commit-tree', empty, '-m', 'master'));
    for (const id of ['4711', '52', '1000']) commitOn(`cf/${id}`, `entry ${id} v1`);
    commitOn('cfx/9', 'not an entry branch');

    // First sweep: every entry is new; two now, the third next time.
    expect(sweep(2)).toEqual(['1000', '4711']);
    expect(sweep(2)).toEqual(['52']);
    // Nothing moved: nothing runs (the bench job is skipped).
    expect(sweep(2)).toEqual([]);
    // 4711's cfbot branch gets a new patch set, 52 is closed, 7 is new: 4711 and 7 run, 1000 does not.
    commitOn('cf/4711', 'entry 4711 v2');
    git('update-ref', '-d', 'refs/heads/cf/52');
    commitOn('cf/7', 'entry 7 v1');
    expect(sweep(20)).toEqual(['4711', '7']);
    expect(readFileSync(path.join(sweepDir, 'cf-seen.txt'), 'utf8')).toBe(
      ['1000', '4711', '7'].map((id) => `${id} ${git('rev-parse', `cf/${id}`)}\n`).join(''),
    );
    expect(sweep(20)).toEqual([]);
  });
});
