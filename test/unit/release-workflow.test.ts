/**
 * The release workflow (.github/workflows/release.yml, docs/releasing.md): it starts on v0.* tags only, tests
 * (the dist check, then the test command) before anything is published, and only its publishing job may write.
 * The publish step's own script runs here against a local bare repository standing in for GitHub's, with a
 * stand-in `gh` that records what it was asked: v0 moves only to the newest v0.MINOR.PATCH release.
 * actionlint checks the file itself (test/unit/docs/repo-workflows.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from './../helpers/doc-pages.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  'runs-on'?: string | string[];
  permissions?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  name: string;
  on: unknown;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = parse(
  readFileSync(path.join(REPO_ROOT, '.github/workflows/release.yml'), 'utf8'),
) as Workflow;
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const publish = workflow.jobs.release!.steps.find((s) => s.id === 'publish')!;
/** Where a step's command line runs one of these npm scripts (e.g. "npm run check-dist"). */
const runs = (job: Job, script: string) =>
  job.steps.findIndex((s) => s.run !== undefined && new RegExp(`^npm (run )?${script}\\b`, 'm').test(s.run));
/** Steps that publish: create a release or push a tag. */
const publishes = (s: Step) => /\bgh release create\b|\bgit push\b/.test(s.run ?? '');

describe('release.yml', () => {
  it('starts on pushed v0.* tags only, no branch, no other event', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v0.*'] } });
  });

  it('the test job runs npm ci, then the dist check, then the test command; nothing in it publishes', () => {
    const test = workflow.jobs.test!;
    const ci = runs(test, 'ci');
    const dist = runs(test, 'check-dist');
    const all = runs(test, 'test:all');
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(dist).toBeGreaterThan(ci);
    expect(all).toBeGreaterThan(dist);
    expect(test.steps.filter(publishes)).toEqual([]);
    // The test command is the README's: type check, lint, format, the dist check again, every test.
    expect(pkg.scripts['test:all']).toMatch(/npm run check-dist && npm test$/);
    expect(pkg.scripts['check-dist']).toContain('git diff --exit-code');
    // It runs on the benchmark runner of docs/runner.md, which has what the tests need.
    expect(test['runs-on']).toEqual(['self-hosted', 'linux', 'perf']);
  });

  it('publishing waits for the tests, and is the only job that may write', () => {
    const release = workflow.jobs.release!;
    expect(release.needs).toBe('test');
    expect(release.steps.filter(publishes).map((s) => s.id)).toEqual(['publish']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(release.permissions).toEqual({ contents: 'write' });
    expect(workflow.jobs.test!.permissions).toBeUndefined();
    expect(workflow.jobs.test!.steps[0]).toMatchObject({
      uses: 'actions/checkout@v4',
      with: { 'persist-credentials': false },
    });
    // The tag and the token reach the script through the environment, never spliced into its text.
    expect(publish.env).toEqual({ TAG: '${{ github.ref_name }}', GH_TOKEN: '${{ github.token }}' });
    expect(publish.run).not.toContain('${{');
    expect(publish.shell).toBe('bash');
  });
});

/**
 * This environment without GIT_* variables: run from a git hook (GIT_DIR, GIT_INDEX_FILE set), git in the
 * test's repositories would act on this clone's.
 */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));

describe('the publish step, run against a local repository', () => {
  const tmp = useTmpDir('pgperf-release-');
  let origin: string;
  let work: string;
  let bin: string;
  let ghLog: string;
  let releases: string;
  let runs = 0;

  const git = (cwd: string, ...args: string[]) => {
    const res = spawnSync('git', ['-c', 'commit.gpgsign=false', ...args], {
      cwd,
      encoding: 'utf8',
      env: {
        ...cleanEnv(),
        GIT_AUTHOR_NAME: 'pgperf test',
        GIT_AUTHOR_EMAIL: 'test@example.invalid',
        GIT_COMMITTER_NAME: 'pgperf test',
        GIT_COMMITTER_EMAIL: 'test@example.invalid',
      },
    });
    if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
    return res.stdout.trim();
  };
  /** A commit whose package.json says `version`, tagged `tag` and pushed; returns its sha. */
  const release = async (version: string, tag: string) => {
    await writeFile(path.join(work, 'package.json'), `${JSON.stringify({ name: 'pgperf', version })}\n`);
    git(work, 'add', 'package.json');
    git(work, 'commit', '-q', '--allow-empty', '-m', `pgperf ${version}`);
    git(work, 'tag', tag);
    git(work, 'push', '-q', 'origin', `refs/tags/${tag}`);
    return git(work, 'rev-parse', 'HEAD');
  };
  const v0 = () => {
    const res = spawnSync('git', ['--git-dir', origin, 'rev-parse', '--verify', '-q', 'refs/tags/v0'], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    return res.status === 0 ? res.stdout.trim() : undefined;
  };
  /** The step as the release job runs it: a fresh clone of the tag (actions/checkout, all tags), then bash. */
  const publishTag = async (tag: string) => {
    const ws = path.join(tmp(), `ws${runs++}`);
    git(tmp(), 'clone', '-q', origin, ws);
    git(ws, 'checkout', '-q', '--detach', `refs/tags/${tag}`);
    const script = path.join(tmp(), 'publish.sh');
    await writeFile(script, publish.run!);
    await writeFile(ghLog, '');
    const res = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: ws,
      encoding: 'utf8',
      env: {
        ...cleanEnv(),
        PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
        TAG: tag,
        GH_TOKEN: 'test-token',
        GH_LOG: ghLog,
        GH_RELEASES: releases,
      },
    });
    const gh = (await readFile(ghLog, 'utf8')).split('\n').filter(Boolean);
    return { code: res.status, out: `${res.stdout}${res.stderr}`, gh };
  };

  beforeAll(async () => {
    origin = path.join(tmp(), 'origin.git');
    work = path.join(tmp(), 'work');
    bin = path.join(tmp(), 'bin');
    ghLog = path.join(tmp(), 'gh.log');
    releases = path.join(tmp(), 'releases');
    await mkdir(bin);
    await mkdir(releases);
    git(tmp(), 'init', '-q', '--bare', origin);
    git(tmp(), 'clone', '-q', origin, work);
    // gh: records its arguments; `release view` finds what `release create` made; refuses without a token.
    await writeFile(
      path.join(bin, 'gh'),
      [
        '#!/bin/bash',
        '[ -n "$GH_TOKEN" ] || { echo "gh: no GH_TOKEN" >&2; exit 4; }',
        'echo "$*" >> "$GH_LOG"',
        'if [ "$1 $2" = "release view" ]; then [ -e "$GH_RELEASES/$3" ]; exit; fi',
        'if [ "$1 $2" = "release create" ]; then touch "$GH_RELEASES/$3"; fi',
        '',
      ].join('\n'),
    );
    await chmod(path.join(bin, 'gh'), 0o755);
  });

  it('v0.1.0, the first release: released as latest, v0 created at its commit', async () => {
    const sha = await release('0.1.0', 'v0.1.0');
    const r = await publishTag('v0.1.0');
    expect(r.code, r.out).toBe(0);
    expect(r.gh).toEqual([
      'release view v0.1.0',
      'release create v0.1.0 --verify-tag --title v0.1.0 --generate-notes --latest',
    ]);
    expect(v0()).toBe(sha);
    expect(r.out).toContain(`v0 -> v0.1.0 (${sha})`);
  });

  it('a prerelease is published as one and leaves v0 where it was', async () => {
    const before = v0();
    await release('0.2.0-rc.1', 'v0.2.0-rc.1');
    const r = await publishTag('v0.2.0-rc.1');
    expect(r.code, r.out).toBe(0);
    expect(r.gh).toContain(
      'release create v0.2.0-rc.1 --verify-tag --title v0.2.0-rc.1 --generate-notes --prerelease',
    );
    expect(v0()).toBe(before);
  });

  it('the next minor moves v0 forward; a re-run does not create the release twice', async () => {
    const sha = await release('0.2.0', 'v0.2.0');
    expect((await publishTag('v0.2.0')).code).toBe(0);
    expect(v0()).toBe(sha);
    const again = await publishTag('v0.2.0');
    expect(again.code, again.out).toBe(0);
    expect(again.gh).toEqual(['release view v0.2.0']);
    expect(v0()).toBe(sha);
  });

  it('a fix for an older minor is released but not latest, and v0 stays on the newest', async () => {
    const newest = v0();
    git(work, 'checkout', '-q', '-b', 'fix-0.1', 'refs/tags/v0.1.0');
    await release('0.1.1', 'v0.1.1');
    const r = await publishTag('v0.1.1');
    expect(r.code, r.out).toBe(0);
    expect(r.gh).toContain(
      'release create v0.1.1 --verify-tag --title v0.1.1 --generate-notes --latest=false',
    );
    expect(v0()).toBe(newest);
    expect(r.out).toContain('v0 not moved: v0.1.1 is a release and the newest v0.x.y release is v0.2.0');
  });

  it("a tag that is not package.json's version publishes nothing", async () => {
    const before = v0();
    await writeFile(path.join(work, 'README'), 'forgot the version bump\n');
    git(work, 'add', 'README');
    git(work, 'commit', '-q', '-m', 'no bump');
    git(work, 'tag', 'v0.1.2');
    git(work, 'push', '-q', 'origin', 'refs/tags/v0.1.2');
    const r = await publishTag('v0.1.2');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("tag v0.1.2 does not match package.json's version 0.1.1");
    expect(r.gh).toEqual([]);
    expect(v0()).toBe(before);
  });

  it.each(['v0.3', 'v0.03.0', 'v0.3.0.1', 'v0.3.x', 'v1.0.0'])(
    'the malformed tag %s publishes nothing',
    async (tag) => {
      const before = v0();
      await release('0.9.9', tag);
      const r = await publishTag(tag);
      expect(r.code).not.toBe(0);
      expect(r.out).toContain(`tag ${tag} is not v0.MINOR.PATCH`);
      expect(r.gh).toEqual([]);
      expect(v0()).toBe(before);
    },
  );
});
