/**
 * `pgperf run --cpu-dma-latency US --governor NAME` as a user runs it (dist/cli.js, the machine's PostgreSQL
 * as both arms): the controls are held while the measured runs go, recorded in results.json, and restored
 * when the run is interrupted (SIGINT once: the graceful path; twice: the forced exit through the cleanup
 * registry), read back from the files themselves. Bad input stops the run before any server starts.
 *
 * This VM has no cpufreq, so the governor lives in a sysfs tree of regular files (--sysfs-root, hidden);
 * /dev/cpu_dma_latency is the real device: its tests need root (a writable device) and are reported as
 * skipped, with "(needs root)" in their names, when it is not writable.
 */
import { chmod, mkdtemp, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import { flags, onlyResults, onlyResultsFile, runCli, sameInstallRun, SMOKE } from '../helpers/cli.js';
import { installedBinDir, leftoverProcesses } from '../../testkit/postgres.js';
import { cpufreqTree, governors } from '../helpers/cpufreq-tree.js';
import { currentDmaLatency, DMA_DEVICE as DEVICE, dmaDeviceWritable } from '../helpers/dma-latency.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const binDir = installedBinDir();
const writable = await dmaDeviceWritable();
const tmp = useTmpDir('pgperf-it-controls-', { killLeftovers: true });

const runArgs = (parent: string, sysfs: string, controls: string[]) => [
  ...sameInstallRun(binDir, { workload: SMOKE, rounds: 20, duration: 2, out: path.join(parent, 'out') }),
  ...flags({ tmpDir: parent, noStore: true, sysfsRoot: sysfs }),
  ...controls,
];

interface Held {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The governors and the device's bound read while the first measured run was going. */
  during: { governors: string[]; dma?: number };
}

/**
 * Runs the CLI; once a measured run is logged, reads the controls back (the device only with `readDma`),
 * then sends `signals`.
 */
async function runReadAndSignal(
  args: string[],
  sysfs: string,
  signals: NodeJS.Signals[],
  readDma = false,
): Promise<Held> {
  let reading: Promise<Held['during']> | undefined;
  const ran = await runCli(args, {
    cwd: tmp(),
    onStderr: (stderr, child) => {
      if (reading || !/round \d+\/\d+/.test(stderr)) return;
      reading = (async () => {
        const during = {
          governors: await governors(sysfs),
          ...(readDma ? { dma: await currentDmaLatency() } : {}),
        };
        signals.forEach((s, i) => setTimeout(() => child.kill(s), i * 300));
        return during;
      })();
      // Awaited once the run ends; until then a failed read must not count as unhandled.
      reading.catch(() => undefined);
    },
    killAfterMs: 120_000,
  });
  if (!reading) throw new Error(`the run ended before a measured run: ${ran.stderr}`);
  return { code: ran.code, stdout: ran.stdout, stderr: ran.stderr, during: await reading };
}

/** A fresh run directory with its fake cpufreq tree. */
async function setUp(prefix: string): Promise<{ parent: string; sysfs: string }> {
  const parent = await mkdtemp(path.join(tmp(), prefix));
  await chmod(parent, 0o755);
  const sysfs = path.join(parent, 'sysfs');
  await cpufreqTree(sysfs);
  return { parent, sysfs };
}

/** The controls recorded in the run's results.json. */
function recordedControls(parent: string): Promise<RunResult> {
  return onlyResults(path.join(parent, 'out'));
}

const INTERRUPTS = [
  { name: 'SIGINT once', signals: ['SIGINT'] as NodeJS.Signals[] },
  { name: 'SIGINT twice (forced exit)', signals: ['SIGINT', 'SIGINT'] as NodeJS.Signals[] },
];

/** Bad controls, each with the message that must stop the run before any server starts. */
const badCases = (parent: string): Array<[string[], RegExp]> => [
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

async function runBadCases(parent: string, sysfs: string): Promise<void> {
  for (const [controls, message] of badCases(parent)) {
    // One short round: should a check not stop the run, the test fails fast instead of measuring.
    const args = [...runArgs(parent, sysfs, []), '--rounds', '1', '--duration', '1', '--force', ...controls];
    const ran = await runCli(args, { cwd: tmp() });
    expect(ran.code, ran.stderr).not.toBe(0);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr).not.toMatch(/initdb|round \d+\/\d+|internal error/);
  }
}

describe('pgperf run --cpu-dma-latency/--governor (dist/cli.js)', () => {
  it.each(INTERRUPTS)(
    '$name: governor held during the runs, recorded, restored after the interrupt',
    async ({ signals }) => {
      const { parent, sysfs } = await setUp('run-');
      const ran = await runReadAndSignal(
        runArgs(parent, sysfs, ['--governor', 'performance']),
        sysfs,
        signals,
      );

      expect(ran.during.governors).toEqual(['performance', 'performance']);
      expect(ran.code).toBe(130);
      expect(ran.stderr).not.toMatch(/internal error/);
      expect(ran.stderr).toMatch(
        /machine controls applied \(restored at the end\): governor performance on 2 CPUs/,
      );
      // Read back: the files hold the old governors again.
      expect(await governors(sysfs)).toEqual(['powersave', 'schedutil']);
      expect(ran.stderr).toMatch(
        /machine controls restored: governor back to powersave, schedutil on 2 CPUs/,
      );
      expect(leftoverProcesses(parent)).toEqual([]);

      const result = await recordedControls(parent);
      // Whatever the number of signals, a complete record: interrupted, said so, nothing half-written beside it.
      expect(result.status).toBe('interrupted');
      const resultsFile = await onlyResultsFile(path.join(parent, 'out'));
      expect(ran.stdout).toContain(`results (interrupted) in ${resultsFile}`);
      expect((await readdir(path.dirname(resultsFile))).filter((f) => f.startsWith('.'))).toEqual([]);
      const recorded = result.environment.controls ?? [];
      expect(recorded.filter((c) => c.control === 'governor').map((c) => [c.from, c.to])).toEqual([
        ['powersave', 'performance'],
        ['schedutil', 'performance'],
      ]);
      expect(result.fingerprint?.facts.controls).toMatch(/governor=performance/);
    },
  );

  // The real /dev/cpu_dma_latency is writable only by root: unprivileged, these show as skipped.
  it.skipIf(!writable).each(INTERRUPTS)(
    '$name: /dev/cpu_dma_latency held at 0 during the runs, recorded, restored after the interrupt (needs root)',
    async ({ signals }) => {
      const { parent, sysfs } = await setUp('dma-');
      const before = await currentDmaLatency();
      const controls = ['--governor', 'performance', '--cpu-dma-latency', '0'];
      const ran = await runReadAndSignal(runArgs(parent, sysfs, controls), sysfs, signals, true);

      expect(ran.during.dma).toBe(0);
      expect(ran.code).toBe(130);
      expect(ran.stderr).not.toMatch(/internal error/);
      // Read back: the device gives the bound from before again.
      expect(await currentDmaLatency()).toBe(before);
      expect(await governors(sysfs)).toEqual(['powersave', 'schedutil']);
      expect(leftoverProcesses(parent)).toEqual([]);

      const recorded = (await recordedControls(parent)).environment.controls ?? [];
      expect(recorded).toContainEqual({ control: 'cpuDmaLatency', file: DEVICE, to: '0 µs' });
    },
  );

  it('bad controls stop the run before any server starts, naming the flag; nothing is changed', async () => {
    const { parent, sysfs } = await setUp('bad-');
    await runBadCases(parent, sysfs);
    expect(await governors(sysfs)).toEqual(['powersave', 'schedutil']);
    expect(leftoverProcesses(parent)).toEqual([]);
  });

  it.skipIf(!writable)(
    'bad controls leave /dev/cpu_dma_latency at the bound it had (needs root)',
    async () => {
      const { parent, sysfs } = await setUp('bad-dma-');
      const before = await currentDmaLatency();
      await runBadCases(parent, sysfs);
      expect(await currentDmaLatency()).toBe(before);
      expect(leftoverProcesses(parent)).toEqual([]);
    },
  );
});
