/** `pgperf doctor` through the built CLI (dist/cli.js), on this machine and on captured fixture trees. */
import { readFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PreflightReport } from '../../src/machine/preflight.js';
import { runCli } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const root = new URL('../../', import.meta.url).pathname;
const fixture = (name: string) => path.join(root, 'test/fixtures/sysfs', name);

const pgperf = (args: string[]) => runCli(args);
const tmp = useTmpDir('pgperf-doctor-');

describe('pgperf doctor', () => {
  it('on this machine: verdict first, then grouped facts; --json agrees with the topology Node sees', async () => {
    const text = await pgperf(['doctor', '--window', '0.5']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^verdict: (ready|usable with warnings|not fit for benchmarking)/);
    expect(text.stdout).toContain('\nCPU\n');
    const json = await pgperf(['doctor', '--json', '--window', '0']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as PreflightReport;
    expect(report.topology.logicalCpus).toBe(os.cpus().length);
    expect(report.facts.map((f) => f.id)).toEqual(expect.arrayContaining(['topology', 'memory', 'nofile']));
  });

  it("on this machine: the runner's tools, disk and users after the machine's facts, each one docs/runner.md lists", async () => {
    const json = await pgperf(['doctor', '--json', '--window', '0']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as PreflightReport;
    const ids = report.facts.map((f) => f.id);
    expect(ids).toEqual(
      expect.arrayContaining(['buildTools', 'ccache', 'valgrind', 'perf', 'sysbench', 'postgresPackages']),
    );
    expect(ids).toEqual(expect.arrayContaining(['cacheDisk', 'tmpDisk', 'runAs']));
    expect(ids.indexOf('buildTools')).toBeGreaterThan(ids.indexOf('nofile'));
    const page = readFileSync(path.join(root, 'docs/runner.md'), 'utf8');
    for (const id of ids) expect(page).toContain(`| \`${id}\` |`);
    // A captured tree is another machine: this runner's tools are not its facts.
    const captured = await pgperf(['doctor', '--json', '--window', '0', '--root', fixture('epyc-many-ccx')]);
    expect((JSON.parse(captured.stdout) as PreflightReport).facts.map((f) => f.group)).not.toContain('tools');
  });

  it.runIf(process.getuid?.() === 0)(
    'as root, a build cache under a private directory is bad: PostgreSQL runs as pgperf and cannot reach it',
    async () => {
      const home = path.join(tmp(), 'private-home');
      await mkdir(home);
      await chmod(home, 0o700);
      const res = await pgperf([
        'doctor',
        '--strict',
        '--window',
        '0',
        '--cache-dir',
        path.join(home, 'cache'),
      ]);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/^verdict: not fit for benchmarking/);
      expect(res.stdout).toContain(
        `BAD   directories pgperf must enter: pgperf cannot enter ${path.join(home, 'cache')}`,
      );
      expect(res.stdout).toContain('fix: choose directories outside private homes');
    },
  );

  it('--strict exits 1 on a machine that is not fit (the captured busy guest), 0 on one with warnings only', async () => {
    const busy = await pgperf(['doctor', '--strict', '--window', '0', '--root', fixture('kvm-guest')]);
    expect(busy.code).toBe(1);
    expect(busy.stdout).toMatch(/^verdict: not fit for benchmarking/);
    expect(busy.stdout).toContain('BAD ');
    const epyc = await pgperf(['doctor', '--strict', '--window', '0', '--root', fixture('epyc-many-ccx')]);
    expect(epyc.code).toBe(0);
    expect(epyc.stdout).toMatch(/^verdict: usable with warnings/);
    expect(epyc.stdout).toContain('fix: echo 0 | tee /sys/devices/system/cpu/cpufreq/boost');
  });

  it('bad flags name the flag, the value and the expected form', async () => {
    const res = await pgperf(['doctor', '--window', 'soon']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("--window must be a number of seconds from 0 to 600, got 'soon'");
    const sb = await pgperf(['doctor', '--shared-buffers', 'lots']);
    expect(sb.stderr).toContain("--shared-buffers must be a size such as 8GB or 512MB, got 'lots'");
  });
});
