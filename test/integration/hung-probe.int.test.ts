/**
 * One SIGINT ends a run whatever program of it hangs (issue #40 items 4 and 5): a program pgperf asks a
 * fact before anything starts (the client's `pgbench --version`, an arm's `postgres --version`, the
 * compiler's `--version` before a build) is code pgperf did not write, and a fake that loops for ever
 * stood in for each. Those probes used to get neither the run's stop signal nor a deadline, and `initdb`
 * neither, so one Ctrl-C waited out the five-minute graceful stop. The stages after them too: a client that
 * loads the data and then hangs in its counted run or its timed run. Each time the CLI (the source, through
 * tsx) exits 130 within 5 s of the signal and nothing it started is left running.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedBinDir, leftoverProcesses } from '../../testkit/postgres.js';
import { CLI_SOURCE, sameInstallRun, SMOKE, type Ran } from '../helpers/cli.js';
import { TEST_GIT_ENV } from '../helpers/git.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const binDir = installedBinDir();
const tmp = useTmpDir('pgperf-it-hung-probe-', { killLeftovers: true });

/** A program that never answers: a shell loop (the script's path stays in its command line). */
const HUNG = '#!/bin/sh\nwhile :; do sleep 1; done\n';

async function hungProgram(dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(dir, 0o755);
  const file = path.join(dir, name);
  await writeFile(file, HUNG, { mode: 0o755 });
  return file;
}

/**
 * Runs the CLI, waits until `fake` runs, sends one SIGINT and reports how long the CLI took to end after
 * it, and what was still running from `dir` then.
 */
async function interruptWhileHung(
  args: string[],
  fake: string,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Which run of the fake is the hang (default: any). */
  hangs: (cmdline: string) => boolean = () => true,
): Promise<Ran & { endedAfterMs: number; leftovers: string[] }> {
  // The source through tsx, as runCli({ source: true }) runs it, with the child at hand from the start.
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), CLI_SOURCE, ...args], {
    cwd: dir,
    env,
  });
  // Never outlive the test: a CLI that did not stop is killed (and then fails the assertions).
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let finished = false;
  void closed.then(() => (finished = true));
  const waitUntil = Date.now() + 90_000;
  const hanging = () => leftoverProcesses(fake).filter(hangs);
  while (!finished && Date.now() < waitUntil && hanging().length === 0) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(hanging(), `the fake program never hung:\n${stderr}`).not.toEqual([]);
  // The loop runs: the probe hangs. One Ctrl-C, as a terminal sends it (to pgperf, not its children).
  const signalledAt = Date.now();
  child.kill('SIGINT');
  const code = await closed;
  const endedAfterMs = Date.now() - signalledAt;
  clearTimeout(guard);
  return { code, stdout, stderr, endedAfterMs, leftovers: leftoverProcesses(dir) };
}

describe('one SIGINT ends a run whose program hangs, at every stage', () => {
  it('a client whose `pgbench --version` never answers: exit 130 within 5 s, nothing left', async () => {
    const dir = path.join(tmp(), 'client');
    const fake = await hungProgram(path.join(dir, 'bin'), 'pgbench');
    const args = sameInstallRun(binDir, {
      workload: SMOKE,
      clientBin: path.dirname(fake),
      noStore: true,
      out: path.join(dir, 'out'),
      tmpDir: dir,
    });
    const ran = await interruptWhileHung(args, fake, dir);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.stderr).toContain('SIGINT: stopping');
    expect(ran.code).toBe(130);
    expect(ran.endedAfterMs).toBeLessThan(5_000);
    expect(ran.leftovers).toEqual([]);
  });

  it('an arm whose `postgres --version` never answers: exit 130 within 5 s, nothing left', async () => {
    const dir = path.join(tmp(), 'arm');
    const fakeBin = path.join(dir, 'bin');
    const fake = await hungProgram(fakeBin, 'postgres');
    // The other programs a bin dir must hold, the real ones: only postgres hangs.
    for (const program of ['initdb', 'pg_ctl', 'psql', 'pgbench']) {
      await symlink(path.join(binDir, program), path.join(fakeBin, program));
    }
    const args = [
      'run',
      '--arm',
      `base=${binDir}`,
      '--arm',
      `head=${fakeBin}`,
      '--client-bin',
      binDir,
      '--workload',
      SMOKE,
      '--no-store',
      '--out',
      path.join(dir, 'out'),
      '--tmp-dir',
      dir,
    ];
    const ran = await interruptWhileHung(args, fake, dir);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(130);
    expect(ran.endedAfterMs).toBeLessThan(5_000);
    expect(ran.leftovers).toEqual([]);
  });

  it('an arm whose `initdb` never answers (the servers being set up): exit 130 within 5 s, nothing left', async () => {
    const dir = path.join(tmp(), 'initdb');
    const fakeBin = path.join(dir, 'bin');
    const fake = await hungProgram(fakeBin, 'initdb');
    for (const program of ['postgres', 'pg_ctl', 'psql', 'pgbench']) {
      await symlink(path.join(binDir, program), path.join(fakeBin, program));
    }
    const args = sameInstallRun(fakeBin, {
      workload: SMOKE,
      noStore: true,
      noInstructions: true,
      out: path.join(dir, 'out'),
      tmpDir: dir,
    });
    const ran = await interruptWhileHung(args, fake, dir);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(130);
    expect(ran.endedAfterMs).toBeLessThan(5_000);
    expect(ran.leftovers).toEqual([]);
  });

  it.each([
    { stage: 'its counted run (pgbench -t, --instructions)', flag: 'instructions', runArg: ' -t ' },
    { stage: 'its timed run (pgbench -T)', flag: 'noInstructions', runArg: ' -T ' },
  ])(
    'a client that answers its version and loads the data but hangs in $stage: exit 130 within 5 s, nothing left',
    async ({ flag, runArg }) => {
      const dir = path.join(tmp(), `client-${flag}`);
      const clientBin = path.join(dir, 'bin');
      await mkdir(clientBin, { recursive: true, mode: 0o755 });
      await chmod(clientBin, 0o755);
      const fake = path.join(clientBin, 'pgbench');
      // The real pgbench for its version and the data load; any other run never ends.
      await writeFile(
        fake,
        `#!/bin/sh\ncase " $* " in *" --version "*|*" -i "*) exec ${path.join(binDir, 'pgbench')} "$@";; esac\nwhile :; do sleep 1; done\n`,
        { mode: 0o755 },
      );
      const args = sameInstallRun(binDir, {
        workload: SMOKE,
        clientBin,
        noStore: true,
        [flag]: true,
        out: path.join(dir, 'out'),
        tmpDir: dir,
      });
      const ran = await interruptWhileHung(args, fake, dir, process.env, (cmdline) =>
        cmdline.includes(runArg),
      );
      expect(ran.stderr).not.toMatch(/internal error/);
      expect(ran.code).toBe(130);
      expect(ran.endedAfterMs).toBeLessThan(5_000);
      expect(ran.leftovers).toEqual([]);
    },
  );

  it("a build whose compiler's `--version` never answers: exit 130 within 5 s, nothing left", async () => {
    const dir = path.join(tmp(), 'build');
    const fake = await hungProgram(path.join(dir, 'cc-bin'), 'cc');
    const repo = path.join(dir, 'repo');
    await mkdir(repo);
    const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, env: TEST_GIT_ENV, stdio: 'pipe' });
    git('init', '-q', '-b', 'master');
    git('commit', '-q', '--allow-empty', '-m', 'empty');
    const args = ['build', '--repo', repo, '--ref', 'master', '--cache-dir', path.join(dir, 'cache')];
    const ran = await interruptWhileHung(args, fake, dir, { ...process.env, CC: fake });
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(130);
    expect(ran.endedAfterMs).toBeLessThan(5_000);
    expect(ran.leftovers).toEqual([]);
  });
});
