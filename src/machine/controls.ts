/**
 * Machine controls for measured runs, opt-in and always restored:
 *
 * - `cpuDmaLatencyUs`: hold /dev/cpu_dma_latency open with a latency bound (µs). The kernel keeps idle
 *   CPUs out of states whose exit latency exceeds the lowest bound any open file holds; closing the
 *   file drops the request (tuned's force_latency works this way). With 0, idle cores only poll: the
 *   control for the many-core throughput dip caused by deep C-states. The kernel also drops it when
 *   the process dies, even by SIGKILL.
 * - `governor`: the cpufreq governor of every (or the given) CPU, old values remembered and written
 *   back on restore. A SIGKILL cannot restore these; Ctrl-C, errors and normal ends do.
 *
 * Either everything is applied or nothing is: every file is opened before the first write, a failure
 * rolls back what was changed, and the error names the file and what to do. The restore is registered
 * with onCleanup, so the CLI's Ctrl-C path and the action's last-resort cleanup run it too.
 */
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { onCleanup } from '../util/cleanup.js';
import { readTopology } from '../env/topology.js';
import { readValue } from '../env/sysfs.js';
import { UserError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';

export interface ControlSpec {
  /** Hold /dev/cpu_dma_latency at this bound in µs (0 = no idle state deeper than polling). */
  cpuDmaLatencyUs?: number;
  /** Set this cpufreq governor (e.g. "performance") for the run. */
  governor?: string;
  /** CPUs whose governor is set (default: every online CPU). */
  cpus?: number[];
}

export interface ControlChange {
  control: 'cpuDmaLatency' | 'governor';
  /** The file changed. */
  file: string;
  /** The value before (undefined for cpu_dma_latency: the request simply ends on restore). */
  from?: string;
  to: string;
}

export interface AppliedControls {
  changes: ControlChange[];
  /** Undoes every change; idempotent; never throws (failures are logged as warnings). */
  restore(): Promise<void>;
}

export interface ControlDeps {
  logger: Logger;
  /** Root of sysfs (default '/'); tests point it at a tree of their own. */
  root?: string;
  /** The PM QoS device (default /dev/cpu_dma_latency). */
  dmaLatencyDevice?: string;
}

/** The largest bound the kernel accepts (PM_QOS_DEFAULT_VALUE is 2e9 µs). */
const MAX_LATENCY_US = 2_000_000_000;
const CPU_DIR = 'sys/devices/system/cpu';

export async function applyControls(spec: ControlSpec, deps: ControlDeps): Promise<AppliedControls> {
  const root = deps.root ?? '/';
  const device = deps.dmaLatencyDevice ?? '/dev/cpu_dma_latency';
  validate(spec);
  const changes: ControlChange[] = [];
  const undo: Array<() => Promise<void>> = [];
  const opened: FileHandle[] = [];
  let restored = false;
  let unregister = () => {};

  const restore = async () => {
    if (restored) return;
    restored = true;
    unregister();
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (e) {
        deps.logger.warn(`restoring a machine control failed: ${errorMessage(e)}`);
      }
    }
  };

  try {
    // Open everything first: a file we cannot write stops us before anything changed.
    const governors: Array<{ file: string; from: string }> = [];
    if (spec.governor !== undefined) {
      const cpus = spec.cpus ?? (await readTopology(root)).cpus.map((c) => c.cpu);
      for (const cpu of cpus) {
        const rel = `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_governor`;
        const file = path.join(root, rel);
        const from = await readValue(root, rel);
        if (from === undefined) {
          throw new UserError(
            `controls.governor: ${file} does not exist: this machine exposes no cpufreq governor for CPU ${cpu} (a VM, or the firmware controls the clock); drop controls.governor`,
          );
        }
        const available = await readValue(root, `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_available_governors`);
        if (available !== undefined && !available.split(/\s+/).includes(spec.governor)) {
          throw new UserError(
            `controls.governor: "${spec.governor}" is not available for CPU ${cpu} (available: ${available})`,
          );
        }
        // Opened read-write to prove it writable, then closed: the write below truncates (as `echo >` does).
        await (await openForWrite(file, 'controls.governor', governorHint(spec.governor))).close();
        governors.push({ file, from });
      }
    }
    let dma: FileHandle | undefined;
    if (spec.cpuDmaLatencyUs !== undefined) {
      dma = await openForWrite(device, 'controls.cpuDmaLatency', dmaHint());
      opened.push(dma);
    }

    for (const g of governors) {
      await writeText(g.file, spec.governor!);
      undo.push(() => writeText(g.file, g.from));
      changes.push({ control: 'governor', file: g.file, from: g.from, to: spec.governor! });
    }

    if (dma) {
      const value = Buffer.alloc(4);
      value.writeInt32LE(spec.cpuDmaLatencyUs!);
      const handle = dma;
      opened.length = 0;
      undo.push(() => handle.close());
      await handle.write(value, 0, 4, null);
      changes.push({ control: 'cpuDmaLatency', file: device, to: `${spec.cpuDmaLatencyUs} µs` });
    }
  } catch (e) {
    for (const handle of opened) await handle.close().catch(() => {});
    await restore();
    throw e;
  }
  unregister = onCleanup(restore);
  for (const c of changes) {
    deps.logger.info(`machine control: ${c.file} ${c.from !== undefined ? `${c.from} -> ` : '= '}${c.to}`);
  }
  return { changes, restore };
}

function validate(spec: ControlSpec): void {
  const us = spec.cpuDmaLatencyUs;
  if (us !== undefined && (!Number.isInteger(us) || us < 0 || us > MAX_LATENCY_US)) {
    throw new UserError(
      `controls.cpuDmaLatency: expected whole microseconds from 0 to ${MAX_LATENCY_US}, got ${JSON.stringify(us)}`,
    );
  }
  if (spec.governor !== undefined && !/^[a-z][a-z0-9_-]*$/.test(spec.governor)) {
    throw new UserError(
      `controls.governor: expected a governor name such as performance, got ${JSON.stringify(spec.governor)}`,
    );
  }
}

async function openForWrite(file: string, field: string, hint: string): Promise<FileHandle> {
  try {
    return await open(file, 'r+');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? errorMessage(e);
    const what = code === 'ENOENT' ? 'does not exist' : `is not writable (${code})`;
    throw new UserError(`${field}: ${file} ${what}: ${hint}`);
  }
}

async function writeText(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, `${text}\n`);
  } catch (e) {
    throw new UserError(`cannot write "${text}" to ${file}: ${errorMessage(e)}`);
  }
}

function governorHint(governor: string): string {
  return `run pgperf as root, or set it before the run with \`cpupower frequency-set -g ${governor}\` and drop controls.governor`;
}

function dmaHint(): string {
  return (
    'run pgperf as root, or let its user write the device (udev rule: KERNEL=="cpu_dma_latency", GROUP="pgperf", MODE="0660"), ' +
    'or disable deep idle states before the run with `cpupower idle-set -D 10` and drop controls.cpuDmaLatency'
  );
}
