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
import { onCleanup } from './os/cleanup.js';
import { readTopology } from './topology.js';
import type { ControlChange } from '../core/results/control-change.js';
import { readValue } from './sysfs.js';
import { UserError, errorMessage } from '../core/util/errors.js';
import type { Logger } from '../core/util/logger.js';

export interface ControlSpec {
  /** Hold /dev/cpu_dma_latency at this bound in µs (0 = no idle state deeper than polling). */
  cpuDmaLatencyUs?: number;
  /** Set this cpufreq governor (e.g. "performance") for the run. */
  governor?: string;
  /** CPUs whose governor is set (default: every online CPU). */
  cpus?: number[];
}

export type { ControlChange };

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
  /** How errors name each control: the CLI flag or Action input (default controls.cpuDmaLatency/governor). */
  fields?: ControlFields;
}

export interface ControlFields {
  cpuDmaLatency: string;
  governor: string;
}

const DEFAULT_FIELDS: ControlFields = {
  cpuDmaLatency: 'controls.cpuDmaLatency',
  governor: 'controls.governor',
};

/** The largest bound the kernel accepts (PM_QOS_DEFAULT_VALUE is 2e9 µs). */
const MAX_LATENCY_US = 2_000_000_000;
const CPU_DIR = 'sys/devices/system/cpu';

/** What a run asks for: the controls, and where they live and how errors name them (adapters fill it). */
export type ControlRequest = ControlSpec & Omit<ControlDeps, 'logger'>;

/** True when the spec asks for any control. */
export function wantsControls(spec: ControlSpec): boolean {
  return spec.cpuDmaLatencyUs !== undefined || spec.governor !== undefined;
}

/**
 * Everything applyControls checks, without changing anything: the values, each file's existence and
 * writability, the governor among the driver's. Adapters call it before any build or server starts, so a
 * control that cannot be applied costs no time.
 */
export async function checkControls(spec: ControlSpec, deps: ControlDeps): Promise<void> {
  if (!wantsControls(spec)) return;
  const probed = await probe(spec, deps);
  await probed.dma?.close();
}

interface Probed {
  governors: Array<{ file: string; from: string }>;
  /** The device, opened (opening adds no bound: the kernel's request starts at the default). */
  dma?: FileHandle;
}

/** Validates the spec and opens every file: a file we cannot write stops us before anything changed. */
async function probe(spec: ControlSpec, deps: ControlDeps): Promise<Probed> {
  const root = deps.root ?? '/';
  const device = deps.dmaLatencyDevice ?? '/dev/cpu_dma_latency';
  const fields = deps.fields ?? DEFAULT_FIELDS;
  validate(spec, fields);
  const governors: Probed['governors'] = [];
  if (spec.governor !== undefined) {
    const cpus = spec.cpus ?? (await readTopology(root)).cpus.map((c) => c.cpu);
    if (cpus.length === 0) {
      throw new UserError(
        `${fields.governor}: no online CPU under ${path.join(root, CPU_DIR)}: cannot set a governor on this machine; drop ${fields.governor}`,
      );
    }
    for (const cpu of cpus) {
      const rel = `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_governor`;
      const file = path.join(root, rel);
      const from = await readValue(root, rel);
      if (from === undefined) {
        throw new UserError(
          `${fields.governor}: ${file} does not exist: this machine exposes no cpufreq governor for CPU ${cpu} (a VM, or the firmware controls the clock); drop ${fields.governor}`,
        );
      }
      const available = await readValue(root, `${CPU_DIR}/cpu${cpu}/cpufreq/scaling_available_governors`);
      if (available !== undefined && !available.split(/\s+/).includes(spec.governor)) {
        throw new UserError(
          `${fields.governor}: "${spec.governor}" is not available for CPU ${cpu} (available: ${available})`,
        );
      }
      // Opened read-write to prove it writable, then closed: the write truncates (as `echo >` does).
      await (await openForWrite(file, fields.governor, governorHint(spec.governor, fields.governor))).close();
      governors.push({ file, from });
    }
  }
  const dma =
    spec.cpuDmaLatencyUs !== undefined
      ? await openForWrite(device, fields.cpuDmaLatency, dmaHint(fields.cpuDmaLatency))
      : undefined;
  return { governors, ...(dma ? { dma } : {}) };
}

export async function applyControls(spec: ControlSpec, deps: ControlDeps): Promise<AppliedControls> {
  const device = deps.dmaLatencyDevice ?? '/dev/cpu_dma_latency';
  const changes: ControlChange[] = [];
  const undo: Array<() => Promise<void>> = [];
  let restored = false;
  let unregister = () => {};

  const restore = async () => {
    if (restored) return;
    restored = true;
    unregister();
    let failed = 0;
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (e) {
        failed++;
        deps.logger.warn(`restoring a machine control failed: ${errorMessage(e)}`);
      }
    }
    if (changes.length > 0 && failed === 0) {
      deps.logger.info(`machine controls restored: ${describeRestore(changes)}`);
    }
  };

  const { governors, dma } = await probe(spec, deps);
  let unheld = dma;
  try {
    for (const g of governors) {
      await writeText(g.file, spec.governor!);
      undo.push(() => writeText(g.file, g.from));
      changes.push({ control: 'governor', file: g.file, from: g.from, to: spec.governor! });
    }

    if (dma) {
      const value = Buffer.alloc(4);
      value.writeInt32LE(spec.cpuDmaLatencyUs!);
      unheld = undefined;
      undo.push(() => dma.close());
      await dma.write(value, 0, 4, null).catch((e: unknown) => {
        throw new UserError(`cannot hold ${device} at ${spec.cpuDmaLatencyUs} µs: ${errorMessage(e)}`);
      });
      changes.push({ control: 'cpuDmaLatency', file: device, to: `${spec.cpuDmaLatencyUs} µs` });
    }
  } catch (e) {
    await unheld?.close().catch(() => {});
    await restore();
    throw e;
  }
  unregister = onCleanup(restore);
  deps.logger.info(`machine controls applied (restored at the end): ${describeControls(changes)}`);
  return { changes, restore };
}

/**
 * One line for what was changed, e.g. "governor performance on 2 CPUs (was powersave, schedutil);
 * /dev/cpu_dma_latency held at 0 µs": one governor phrase however many CPUs a many-core box has.
 */
export function describeControls(changes: readonly ControlChange[]): string {
  const parts: string[] = [];
  const governors = changes.filter((c) => c.control === 'governor');
  if (governors.length > 0) {
    const was = [...new Set(governors.map((c) => c.from ?? '?'))].join(', ');
    const cpus = governors.length === 1 ? '1 CPU' : `${governors.length} CPUs`;
    parts.push(`governor ${governors[0]!.to} on ${cpus} (was ${was})`);
  }
  for (const c of changes.filter((c) => c.control === 'cpuDmaLatency')) {
    parts.push(`${c.file} held at ${c.to}`);
  }
  return parts.join('; ');
}

function describeRestore(changes: readonly ControlChange[]): string {
  const parts: string[] = [];
  const governors = changes.filter((c) => c.control === 'governor');
  if (governors.length > 0) {
    const was = [...new Set(governors.map((c) => c.from ?? '?'))].join(', ');
    parts.push(`governor back to ${was} on ${governors.length === 1 ? '1 CPU' : `${governors.length} CPUs`}`);
  }
  for (const c of changes.filter((c) => c.control === 'cpuDmaLatency')) {
    parts.push(`${c.file} released (the kernel's default bound again)`);
  }
  return parts.join('; ');
}

function validate(spec: ControlSpec, fields: ControlFields): void {
  const us = spec.cpuDmaLatencyUs;
  if (us !== undefined && (!Number.isInteger(us) || us < 0 || us > MAX_LATENCY_US)) {
    throw new UserError(
      `${fields.cpuDmaLatency}: expected whole microseconds from 0 to ${MAX_LATENCY_US}, got ${JSON.stringify(us)}`,
    );
  }
  if (spec.governor !== undefined && !/^[a-z][a-z0-9_-]*$/.test(spec.governor)) {
    throw new UserError(
      `${fields.governor}: expected a governor name such as performance, got ${JSON.stringify(spec.governor)}`,
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

function governorHint(governor: string, field: string): string {
  return `run pgperf as root, or set it before the run with \`cpupower frequency-set -g ${governor}\` and drop ${field}`;
}

function dmaHint(field: string): string {
  return (
    'run pgperf as root, or let its user write the device (udev rule: KERNEL=="cpu_dma_latency", GROUP="pgperf", MODE="0660"), ' +
    'or disable deep idle states before the run with `cpupower idle-set -D 10` and drop ' +
    field
  );
}
