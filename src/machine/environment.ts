/**
 * Machine facts recorded with every result, so that series from different machines or settings are
 * never compared without saying so. Unreadable facts are left out, not guessed.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { Environment } from '../core/results/result-types.js';

/** sysfs/procfs files that change benchmark results (see the benchmarking notes, section 7). */
const FACT_FILES: Record<string, string> = {
  governor: '/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor',
  scalingDriver: '/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver',
  energyPerformancePreference: '/sys/devices/system/cpu/cpu0/cpufreq/energy_performance_preference',
  boost: '/sys/devices/system/cpu/cpufreq/boost',
  intelNoTurbo: '/sys/devices/system/cpu/intel_pstate/no_turbo',
  smtControl: '/sys/devices/system/cpu/smt/control',
  smtActive: '/sys/devices/system/cpu/smt/active',
  intelPstateStatus: '/sys/devices/system/cpu/intel_pstate/status',
  amdPstateStatus: '/sys/devices/system/cpu/amd_pstate/status',
  cpuidleGovernor: '/sys/devices/system/cpu/cpuidle/current_governor_ro',
  cpuidleDriver: '/sys/devices/system/cpu/cpuidle/current_driver',
  transparentHugepages: '/sys/kernel/mm/transparent_hugepage/enabled',
  transparentHugepagesDefrag: '/sys/kernel/mm/transparent_hugepage/defrag',
  numaBalancing: '/proc/sys/kernel/numa_balancing',
  clocksource: '/sys/devices/system/clocksource/clocksource0/current_clocksource',
  nrHugepages: '/proc/sys/vm/nr_hugepages',
};

export async function captureEnvironment(settingsHash: string): Promise<Environment> {
  const cpus = os.cpus();
  const facts: Record<string, string> = {};
  await Promise.all(
    Object.entries(FACT_FILES).map(async ([name, file]) => {
      const value = await readTrimmed(file);
      if (value !== undefined) facts[name] = value;
    }),
  );
  const loadavg = os.loadavg().map((l) => l.toFixed(2));
  facts.loadavgAtStart = loadavg.join(' ');
  return {
    hostname: os.hostname(),
    os: (await osPrettyName()) ?? `${os.type()} ${os.release()}`,
    kernel: os.release(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    facts,
    nodeVersion: process.version,
    settingsHash,
  };
}

async function osPrettyName(): Promise<string | undefined> {
  const text = await readTrimmed('/etc/os-release');
  const m = text && /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return m ? m[1] : undefined;
}

async function readTrimmed(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return undefined;
  }
}
