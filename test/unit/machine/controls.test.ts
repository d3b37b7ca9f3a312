import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pendingCleanups } from '../../../src/machine/os/cleanup.js';
import { applyControls, checkControls, describeControls } from '../../../src/machine/controls.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { cpufreqTree, governors } from '../../helpers/cpufreq-tree.js';
import { currentDmaLatency, DMA_DEVICE as DEVICE, dmaDeviceWritable } from '../../helpers/dma-latency.js';

const fixture = (name: string) => new URL(`../../fixtures/sysfs/${name}`, import.meta.url).pathname;

const writable = await dmaDeviceWritable();
let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-controls-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('applyControls', () => {
  it.runIf(writable)('holds /dev/cpu_dma_latency while applied, and closing restores the bound', async () => {
    const before = await currentDmaLatency();
    const applied = await applyControls({ cpuDmaLatencyUs: 0 }, { logger: memoryLogger() });
    try {
      expect(applied.changes).toEqual([{ control: 'cpuDmaLatency', file: DEVICE, to: '0 µs' }]);
      expect(await currentDmaLatency()).toBe(0);
      expect(pendingCleanups()).toBeGreaterThan(0);
    } finally {
      await applied.restore();
    }
    expect(await currentDmaLatency()).toBe(before);
    await applied.restore(); // idempotent
  });

  it('sets the governor per CPU, remembers each old value, and writes them back', async () => {
    await cpufreqTree(tmp);
    const cleanupsBefore = pendingCleanups();
    const applied = await applyControls({ governor: 'performance' }, { logger: memoryLogger(), root: tmp });
    expect(await governors(tmp)).toEqual(['performance', 'performance']);
    expect(applied.changes.map((c) => [c.control, c.from, c.to])).toEqual([
      ['governor', 'powersave', 'performance'],
      ['governor', 'schedutil', 'performance'],
    ]);
    expect(pendingCleanups()).toBe(cleanupsBefore + 1);
    await applied.restore();
    expect(await governors(tmp)).toEqual(['powersave', 'schedutil']);
    expect(pendingCleanups()).toBe(cleanupsBefore);
  });

  it('a machine without cpufreq: a clear error naming the file, nothing applied', async () => {
    const err = applyControls(
      { governor: 'performance' },
      { logger: memoryLogger(), root: fixture('kvm-guest') },
    );
    await expect(err).rejects.toThrow(
      /controls\.governor: .*kvm-guest\/sys\/devices\/system\/cpu\/cpu0\/cpufreq\/scaling_governor does not exist: .*drop controls\.governor/,
    );
  });

  it('an unwritable device stops everything before the first change (no half-applied governor)', async () => {
    await cpufreqTree(tmp);
    const missing = path.join(tmp, 'no-such-device');
    await expect(
      applyControls(
        { governor: 'performance', cpuDmaLatencyUs: 0 },
        { logger: memoryLogger(), root: tmp, dmaLatencyDevice: missing },
      ),
    ).rejects.toThrow(`controls.cpuDmaLatency: ${missing} does not exist: run pgperf as root`);
    expect(await governors(tmp)).toEqual(['powersave', 'schedutil']);
    // A directory cannot be opened for writing: the same, with the reason.
    await expect(
      applyControls({ cpuDmaLatencyUs: 0 }, { logger: memoryLogger(), dmaLatencyDevice: tmp }),
    ).rejects.toThrow(/is not writable \(EISDIR\)/);
  });

  it('a control that fails after another was applied rolls the first back (never half-applied)', async () => {
    await cpufreqTree(tmp);
    const cleanupsBefore = pendingCleanups();
    // /dev/full opens for writing but every write fails (ENOSPC): the governors are already set by then.
    await expect(
      applyControls(
        { governor: 'performance', cpuDmaLatencyUs: 0 },
        { logger: memoryLogger(), root: tmp, dmaLatencyDevice: '/dev/full' },
      ),
    ).rejects.toThrow(/cannot hold \/dev\/full at 0 µs: .*ENOSPC/);
    expect(await governors(tmp)).toEqual(['powersave', 'schedutil']);
    expect(pendingCleanups()).toBe(cleanupsBefore);
  });

  it('checkControls finds every problem applyControls would, and changes nothing', async () => {
    await cpufreqTree(tmp);
    const fields = { cpuDmaLatency: '--cpu-dma-latency', governor: '--governor' };
    const deps = { logger: memoryLogger(), root: tmp, fields };
    await expect(checkControls({ governor: 'ondemand' }, deps)).rejects.toThrow(
      '--governor: "ondemand" is not available for CPU 0 (available: performance powersave schedutil)',
    );
    await expect(checkControls({ cpuDmaLatencyUs: -5 }, deps)).rejects.toThrow(
      '--cpu-dma-latency: expected whole microseconds from 0 to 2000000000, got -5',
    );
    await expect(
      checkControls({ cpuDmaLatencyUs: 0 }, { ...deps, dmaLatencyDevice: path.join(tmp, 'none') }),
    ).rejects.toThrow(`--cpu-dma-latency: ${path.join(tmp, 'none')} does not exist: run pgperf as root`);
    await checkControls({ governor: 'performance' }, deps);
    expect(await governors(tmp)).toEqual(['powersave', 'schedutil']);
  });

  it('describes what it changed in one line, however many CPUs', () => {
    expect(
      describeControls([
        { control: 'governor', file: 'a', from: 'powersave', to: 'performance' },
        { control: 'governor', file: 'b', from: 'schedutil', to: 'performance' },
        { control: 'cpuDmaLatency', file: DEVICE, to: '0 µs' },
      ]),
    ).toBe('governor performance on 2 CPUs (was powersave, schedutil); /dev/cpu_dma_latency held at 0 µs');
  });

  it('refuses bad values and unavailable governors, naming the field', async () => {
    await cpufreqTree(tmp);
    const deps = { logger: memoryLogger(), root: tmp };
    await expect(applyControls({ cpuDmaLatencyUs: -1 }, deps)).rejects.toThrow(
      /controls\.cpuDmaLatency: .*got -1/,
    );
    await expect(applyControls({ governor: 'turbo' }, deps)).rejects.toThrow(
      'controls.governor: "turbo" is not available for CPU 0 (available: performance powersave schedutil)',
    );
    expect(await governors(tmp)).toEqual(['powersave', 'schedutil']);
  });

  it('SIGINT in a process holding the controls restores them before it exits', async () => {
    await cpufreqTree(tmp);
    const useDevice = writable;
    const before = useDevice ? await currentDmaLatency() : undefined;
    const spec = { governor: 'performance', ...(useDevice ? { cpuDmaLatencyUs: 0 } : {}) };
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        new URL('./hold-controls.child.ts', import.meta.url).pathname,
        JSON.stringify(spec),
        tmp,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('applied') && resolve());
      child.on('close', () => reject(new Error(`child ended early: ${stderr}`)));
    });
    expect(await governors(tmp)).toEqual(['performance', 'performance']);
    if (useDevice) expect(await currentDmaLatency()).toBe(0);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(await governors(tmp)).toEqual(['powersave', 'schedutil']);
    if (useDevice) expect(await currentDmaLatency()).toBe(before);
  });
});
