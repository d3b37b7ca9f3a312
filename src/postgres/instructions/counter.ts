/**
 * Which instruction counter this machine offers: the CPU's own (perf stat -e instructions:u, needs a PMU,
 * which most VMs and GitHub-hosted runners lack) and the simulated one (valgrind's cachegrind, everywhere
 * valgrind is installed). pgperf counts with cachegrind; the hardware counter is detected and reported.
 */
import type { ProcessRunner } from '../../machine/os/process.js';

export interface CounterProbe {
  /** valgrind --version, when valgrind runs. */
  valgrind?: string;
  /** True when `perf stat -e instructions:u` counts on this machine. */
  hardware: boolean;
  /** Why the hardware counter is unavailable (perf missing, "<not supported>", paranoid setting). */
  hardwareWhy?: string;
}

export async function probeCounters(runner: ProcessRunner): Promise<CounterProbe> {
  const vg = await runner.run('valgrind', ['--version']).catch(() => undefined);
  const valgrind = vg?.exitCode === 0 ? vg.stdout.trim() : undefined;
  const perf = await runner
    .run('perf', ['stat', '-x', ',', '-e', 'instructions:u', 'true'])
    .catch(() => undefined);
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
