/**
 * docs/runner.md and `pgperf doctor` cannot drift apart: the page's table of checks names exactly the facts the
 * doctor reports (by their ids in `pgperf doctor --json`), gathered over the captured machines of
 * test/fixtures/sysfs (with and without a load window, as root and not) and the runner facts of a root and a
 * non-root runner; and the packages the page tells you to install are the ones the doctor's fixes name and
 * scripts/setup.sh installs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/core/results/result-types.js';
import type { ProcessResult, ProcessRunner } from '../../../src/machine/os/process.js';
import { preflight } from '../../../src/machine/preflight.js';
import { LIBRARY_PACKAGES, TOOL_PACKAGES } from '../../../src/postgres/builds/deps.js';
import { runnerFacts } from '../../../src/postgres/runner-facts.js';
import { REPO_ROOT } from '../../helpers/doc-pages.js';

const PAGE = readFileSync(path.join(REPO_ROOT, 'docs/runner.md'), 'utf8');
const fixture = (name: string) => path.join(REPO_ROOT, 'test/fixtures/sysfs', name);

/** The backticked ids in the first column of the table under the heading that matches `heading`. */
function tableIds(markdown: string, heading: RegExp): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && heading.test(l));
  if (start < 0) throw new Error(`no heading ${String(heading)}`);
  const ids: string[] = [];
  for (let i = start + 1; i < lines.length && !/^#+ /.test(lines[i]!); i++) {
    const first = /^\|\s*`([^`]+)`\s*\|/.exec(lines[i]!)?.[1];
    if (first) ids.push(first);
  }
  return ids;
}

/** The packages of the page's `apt-get install` block (continued lines joined). */
function pageAptPackages(markdown: string): string[] {
  const block = /```sh\n(apt-get install [\s\S]*?)```/.exec(markdown)?.[1];
  if (!block) throw new Error('docs/runner.md: no ```sh block starting with apt-get install');
  return block
    .replace(/\\\n/g, ' ')
    .replace(/^apt-get install/, '')
    .trim()
    .split(/\s+/);
}

/** A runner that answers every program as present and the run-as user as existing. */
const answering: ProcessRunner = {
  run(command) {
    const result: ProcessResult = {
      command: [],
      exitCode: 0,
      signal: null,
      stdout: command === 'getent' ? 'pgperf:x:999:999::/nonexistent:/usr/sbin/nologin\n' : '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
    };
    return Promise.resolve(result);
  },
};

/** The runner facts on a machine where nothing is on the PATH (every tool's fix shows). */
const bareRunner = (uid: number) =>
  runnerFacts({
    env: { PATH: '' },
    runner: answering,
    uid,
    userName: uid === 0 ? 'root' : 'runner',
    cacheDir: '/var/cache/pgperf',
    tmpDir: '/tmp',
    postgresDir: '/nonexistent/usr/lib/postgresql',
    freeBytes: () => Promise.resolve(1024 ** 3),
  });

/** Every fact the doctor can report, over the fixture machines and both kinds of runner. */
async function doctorFacts(): Promise<Fact[]> {
  const machines = await Promise.all([
    ...['intel-2s-smt', 'epyc-many-ccx', 'kvm-guest'].flatMap((m) =>
      [0, 1000].map((uid) => preflight({ root: fixture(m), windowS: 0, uid })),
    ),
    // With a load window: busy, steal and other processes instead of the load average.
    preflight({ root: fixture('intel-2s-smt'), windowS: 1, sleep: () => Promise.resolve() }),
  ]);
  return [...machines.flatMap((r) => r.facts), ...(await bareRunner(0)), ...(await bareRunner(1000))];
}

describe('docs/runner.md and pgperf doctor', () => {
  it('the table of checks names exactly the facts the doctor reports', async () => {
    const page = tableIds(PAGE, /What `pgperf doctor` checks/);
    expect(new Set(page).size).toBe(page.length);
    const doctor = new Set((await doctorFacts()).map((f) => f.id));
    expect([...page].sort()).toEqual([...doctor].sort());
  });

  it("the page's packages are what the doctor's fixes install and what scripts/setup.sh installs", async () => {
    const page = pageAptPackages(PAGE);
    const fixes = (await doctorFacts())
      .flatMap((f) => (f.fix ? [/^apt-get install (.*?)(?: {3}|$)/.exec(f.fix)?.[1]] : []))
      .filter((p) => p !== undefined)
      .flatMap((p) => p.split(' '));
    expect(fixes.length).toBeGreaterThan(5);
    expect(page).toEqual(expect.arrayContaining([...new Set(fixes)]));
    // Every build dependency deps.ts knows (the doctor reports only the missing ones).
    expect(page).toEqual(
      expect.arrayContaining([
        ...new Set([...Object.values(TOOL_PACKAGES), ...Object.values(LIBRARY_PACKAGES)]),
      ]),
    );
    // The page says scripts/setup.sh --tests installs the same; perl comes with Debian (perl-base).
    const setup = readFileSync(path.join(REPO_ROOT, 'scripts/setup.sh'), 'utf8');
    for (const p of page.filter((p) => p !== 'perl')) expect(setup).toMatch(new RegExp(`\\b${p}\\b`));
  });

  it('the table parser finds ids only in the first column of its own table', () => {
    const md = [
      '## What `pgperf doctor` checks',
      '| fact | what |',
      '|---|---|',
      '| `a` | x `notme` |',
      '| b | not an id |',
      '| `c` | y |',
      '## Next',
      '| `d` | other table |',
    ].join('\n');
    expect(tableIds(md, /What `pgperf doctor` checks/)).toEqual(['a', 'c']);
  });
});
