/**
 * `pgperf run --cpu-dma-latency US --governor NAME` as a user runs it (dist/cli.js, the machine's PostgreSQL
 * as both arms): the controls are held while the measured runs go, recorded in results.json, and restored
 * when the run is interrupted (SIGINT once: the graceful path; twice: the forced exit through the cleanup
 * registry), read back from the files themselves. Bad input stops the run before any server starts.
 *
 * This VM has no cpufreq, so the governor lives in a sysfs tree of regular files (--sysfs-root, hidden);
 * /dev/cpu_dma_latency is the real device when it is writable here (root), else that part is skipped.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/types.js';
import { runCli } from '../helpers/cli.js';
import { installedBinDir, killProcessesMentioning, processesMentioning } from '../helpers/postgres.js';
import { cpufreqTree, governors } from '../helpers/cpufreq-tree.js';

const root = new URL('../../', import.meta.url).pathname;
const cli = path.join(root, 'dist/cli.js');
const binDir = installedBinDir();
const DEVICE = '/dev/cpu_dma_latency';
const writable = await access(DEVICE, constants.W_OK).then(
  () => true,
  () => false,
);
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-controls-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  killProcessesMentioning(tmp);
  await rm(tmp, { recursive: true, force: true });
});

/** The kernel's current CPU latency bound (reading the device returns it as a 4-byte int). */
async function currentDmaLatency(): Promise<number> {
  const handle = await open(DEVICE, 'r');
  try {
    const buf = Buffer.alloc(4);
    await handle.read(buf, 0, 4, null);
    return buf.readInt32LE(0);
  } finally {
    await handle.close();
  }
}

const runArgs = (parent: string, sysfs: string, controls: string[]) => [
  'run',
  '--arm',
  `base=${binDir}`,
  '--arm',
  `head=${binDir}`,
  '--workload',
  path.join(root, 'workloads/smoke.yml'),
  '--rounds',
  '20',
  '--duration',
  '2',
  '--out',
  path.join(parent, 'out'),
  '--tmp-dir',
  parent,
  '--no-store',
  '--sysfs-root',
  sysfs,
  ...controls,
];

interface Held {
  code: number | null;
  stderr: string;
  /** The governors and the device's bound read while the first measured run was going. */
  during: { governors: string[]; dma?: number };
}

/** Runs the CLI; once a measured run is logged, reads the controls back, then sends `signals`. */
function runReadAndSignal(args: string[], sysfs: string, signals: NodeJS.Signals[]): Promise<Held> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: tmp });
    let stderr = '';
    let during: Held['during'] | undefined;
    let sent = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (sent || !/round \d+\/\d+/.test(stderr)) return;
      sent = true;
      void (async () => {
        during = {
          governors: await governors(sysfs),
          ...(writable ? { dma: await currentDmaLatency() } : {}),
        };
        signals.forEach((s, i) => setTimeout(() => child.kill(s), i * 300));
      })().catch(reject);
    });
    child.stdout.on('data', () => {});
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      if (!during) reject(new Error(`the run ended before a measured run: ${stderr}`));
      else resolve({ code, stderr, during });
    });
  });
}

describe('pgperf run --cpu-dma-latency/--governor (dist/cli.js)', () => {
  it.each([
    { name: 'SIGINT once', signals: ['SIGINT'] as NodeJS.Signals[] },
    { name: 'SIGINT twice (forced exit)', signals: ['SIGINT', 'SIGINT'] as NodeJS.Signals[] },
  ])('$name: held during the runs, recorded, restored after the interrupt', async ({ signals }) => {
    const parent = await mkdtemp(path.join(tmp, 'run-'));
    await chmod(parent, 0o755);
    const sysfs = path.join(parent, 'sysfs');
    await cpufreqTree(sysfs);
    const before = writable ? await currentDmaLatency() : undefined;
    const controls = ['--governor', 'performance', ...(writable ? ['--cpu-dma-latency', '0'] : [])];
    const ran = await runReadAndSignal(runArgs(parent, sysfs, controls), sysfs, signals);

    expect(ran.during.governors).toEqual(['performance', 'performance']);
    if (writable) expect(ran.during.dma).toBe(0);
    expect(ran.code).toBe(130);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.stderr).toMatch(
      /machine controls applied \(restored at the end\): governor performance on 2 CPUs/,
    );
    // Read back: the files hold the old governors again, the device the bound from before.
    expect(await governors(sysfs)).toEqual(['powersave', 'schedutil']);
    if (writable) expect(await currentDmaLatency()).toBe(before);
    expect(ran.stderr).toMatch(/machine controls restored: governor back to powersave, schedutil on 2 CPUs/);
    expect(processesMentioning(parent)).toEqual([]);

    const out = path.join(parent, 'out');
    const [runDir] = await readdir(out);
    const result = JSON.parse(await readFile(path.join(out, runDir!, 'results.json'), 'utf8')) as RunResult;
    const recorded = result.environment.controls ?? [];
    expect(recorded.filter((c) => c.control === 'governor').map((c) => [c.from, c.to])).toEqual([
      ['powersave', 'performance'],
      ['schedutil', 'performance'],
    ]);
    if (writable) expect(recorded).toContainEqual({ control: 'cpuDmaLatency', file: DEVICE, to: '0 µs' });
    expect(result.fingerprint?.facts.controls).toMatch(/governor=performance/);
  });

  it('bad controls stop the run before any server starts, naming the flag; nothing is changed', async () => {
    const parent = await mkdtemp(path.join(tmp, 'bad-'));
    await chmod(parent, 0o755);
    const sysfs = path.join(parent, 'sysfs');
    await cpufreqTree(sysfs);
    const before = writable ? await currentDmaLatency() : undefined;
    const cases: Array<[string[], RegExp]> = [
      [
        ['--governor', 'ondemand', '--cpu-dma-latency', '0'],
        /--governor: "ondemand" is not available for CPU 0 \(available: performance powersave schedutil\)/,
      ],
      [['--cpu-dma-latency=-5'], /--cpu-dma-latency must be a whole number >= 0, got '-5'/],
      [
        ['--governor', 'performance', '--sysfs-root', path.join(parent, 'none')],
        /--governor: no online CPU under .*none\/sys\/devices\/system\/cpu/,
      ],
    ];
    for (const [controls, message] of cases) {
      // One short round: should a check not stop the run, the test fails fast instead of measuring.
      const args = [
        ...runArgs(parent, sysfs, []),
        '--rounds',
        '1',
        '--duration',
        '1',
        '--force',
        ...controls,
      ];
      const ran = await runCli(args, { cwd: tmp });
      expect(ran.code, ran.stderr).not.toBe(0);
      expect(ran.stderr).toMatch(message);
      expect(ran.stderr).not.toMatch(/initdb|round \d+\/\d+|internal error/);
    }
    expect(await governors(sysfs)).toEqual(['powersave', 'schedutil']);
    if (writable) expect(await currentDmaLatency()).toBe(before);
    expect(processesMentioning(parent)).toEqual([]);
  });
});
