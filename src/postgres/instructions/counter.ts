/**
 * Which instruction counter this machine offers: the CPU's own (perf stat -e instructions:u, needs a PMU,
 * which most VMs and GitHub-hosted runners lack) and the simulated one (valgrind's cachegrind, everywhere
 * valgrind is installed). pgperf counts with cachegrind; the hardware counter is detected and reported.
 */
import { UserError } from '../../core/util/errors.js';
import { probeOptions, type ProcessRunner } from '../../machine/os/process.js';
import { HARDWARE_EVENT } from './perf-stat.js';

export interface CounterProbe {
  /** valgrind --version, when valgrind runs. */
  valgrind?: string;
  /** True when `perf stat -e instructions:u` counts on this machine. */
  hardware: boolean;
  /** Why the hardware counter is unavailable (perf missing, "<not supported>", paranoid setting). */
  hardwareWhy?: string;
}

export async function probeCounters(runner: ProcessRunner, signal?: AbortSignal): Promise<CounterProbe> {
  const vg = await runner.run('valgrind', ['--version'], probeOptions(signal)).catch(() => undefined);
  signal?.throwIfAborted();
  const valgrind = vg?.exitCode === 0 ? vg.stdout.trim() : undefined;
  const perf = await runner
    .run('perf', ['stat', '-x', ',', '-e', 'instructions:u', 'true'], probeOptions(signal))
    .catch(() => undefined);
  signal?.throwIfAborted();
  const hardware = hardwareCounts(perf?.exitCode ?? null, perf?.stderr ?? '');
  return {
    ...(valgrind ? { valgrind } : {}),
    hardware,
    ...(hardware ? {} : { hardwareWhy: perf ? perfProblem(perf.stderr) : 'perf is not installed' }),
  };
}

/** Whether perf stat's CSV output (-x ,) counted instructions: a number in the first field. */
export function hardwareCounts(exitCode: number | null, stderr: string): boolean {
  if (exitCode !== 0) return false;
  const line = stderr.split('\n').find((l) => l.includes('instructions'));
  return line !== undefined && /^\d+,/.test(line.trim());
}

function perfProblem(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.includes('instructions')) ?? stderr.trim().split('\n')[0];
  return `perf stat -e instructions:u: ${line?.trim() || 'failed'}`;
}

/**
 * Which counter counts: 'auto' (the default) the CPU's own where perf can count instructions:u (a PMU), else
 * cachegrind; or one of them forced. `perfEvent` replaces instructions:u (tests on a machine without a PMU
 * drive the perf path with a software event such as task-clock).
 */
export interface CounterChoice {
  counter: 'auto' | 'cachegrind' | 'perf';
  perfEvent?: string;
}

/** The counter chosen for a phase. */
export type Counter = { kind: 'cachegrind' } | { kind: 'perf'; event: string };

/** The counter a choice gives on this machine; a UserError when it cannot count here. `what` names the phase. */
export function chooseCounter(choice: CounterChoice, probe: CounterProbe, what: string): Counter {
  const perf = { kind: 'perf' as const, event: choice.perfEvent ?? HARDWARE_EVENT };
  // A replaced event is the caller's to vouch for: perf says so at the first count if it cannot count it.
  const perfCounts = probe.hardware || choice.perfEvent !== undefined;
  if (choice.counter === 'perf') {
    if (!perfCounts) {
      throw new UserError(
        `${what}: --instruction-counter perf: the CPU's counter is unavailable here (${probe.hardwareWhy}); use auto or cachegrind`,
      );
    }
    return perf;
  }
  if (choice.counter === 'auto' && perfCounts) return perf;
  if (!probe.valgrind) {
    throw new UserError(
      `${what}: valgrind is not installed (apt-get install valgrind; scripts/setup.sh installs it)${choice.counter === 'auto' ? `, and the CPU's counter is unavailable (${probe.hardwareWhy})` : ''}`,
    );
  }
  return { kind: 'cachegrind' };
}
