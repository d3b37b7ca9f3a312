/**
 * Preflight: is this machine fit to benchmark on, and what exactly to change if not. Every fact is
 * read from sysfs/procfs under a root directory ('/' here, a fixture tree in tests), judged ok / warn
 * / bad for benchmarking, and carries the command that fixes it. The only side effect is reading
 * files (and waiting `windowS` seconds between the two load samples); nothing is changed.
 *
 * Thresholds follow the benchmarking notes (docs/reference/postgres-benchmarking.md, section 7):
 * frequency ramp-up and boost skew low-client runs, deep C-states cost wake-up latency (Vondra's
 * ~400k -> 1.3M tps), THP and NUMA balancing move memory under a run, a slow clocksource slows
 * every timed call, and other load or steal time is noise in every sample.
 */
import { loadWindow, takeLoadSnapshot, type BusyProcess, type LoadWindow } from './load-sample.js';
import { listDir, readInt, readText, readValue } from './sysfs.js';
import { formatBytes } from '../core/util/bytes.js';
import { describeTopology, readTopology, type Topology } from './topology.js';
import type {
  FactVerdict,
  FactGroup,
  PreflightVerdict,
  Fact,
  PreflightReport,
} from '../core/results/result-types.js';
export type { FactVerdict, FactGroup, PreflightVerdict, Fact, PreflightReport };

export interface PreflightOptions {
  /** Root of sysfs/procfs (default '/'). */
  root?: string;
  /** Seconds over which load, steal time and busy processes are sampled (default 2; 0 = no window). */
  windowS?: number;
  /** The shared_buffers the run will use, to check free memory against (bytes). */
  sharedBuffersBytes?: number;
  /** Pids not counted as other busy processes (default: this process). */
  excludePids?: number[];
  /** How to wait between the samples (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** The uid pgperf runs as (default this process's): perf_event_paranoid does not limit root. */
  uid?: number;
}

/** Thresholds, each named: shares are of all CPUs' time, "cpus" of one CPU. */
export const LIMITS = {
  /** Enabled idle states with a wake-up latency above this (µs) cost latency on every wake-up. */
  deepIdleLatencyUs: 10,
  busyShareWarn: 0.05,
  busyShareBad: 0.25,
  stealShareWarn: 0.01,
  stealShareBad: 0.05,
  /** PSI cpu "some" avg10 (percent of time some task waited for a CPU). */
  psiWarn: 5,
  psiBad: 20,
  /** Other processes' CPU, summed, in CPUs. */
  otherCpusWarn: 0.1,
  otherCpusBad: 0.5,
  /** A process is listed when it used at least this much of one CPU. */
  listProcessCpus: 0.02,
  /** RLIMIT_NOFILE soft limit; pgbench needs one per client plus a few, the server one per backend file. */
  nofileWarn: 4096,
  nofileBad: 1024,
  /** Free memory without a known shared_buffers. */
  minAvailableBytes: 1024 ** 3,
  /** perf_event_paranoid at or below which an unprivileged user may count its own processes (perf_event_open(2)). */
  perfParanoidMax: 2,
} as const;

const CPU_DIR = 'sys/devices/system/cpu';

export async function preflight(options: PreflightOptions = {}): Promise<PreflightReport> {
  const root = options.root ?? '/';
  const windowS = options.windowS ?? 2;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const topology = await readTopology(root);
  const before = await takeLoadSnapshot(root);
  if (windowS > 0) await sleep(windowS * 1000);
  const after = await takeLoadSnapshot(root);
  const window =
    before && after
      ? loadWindow(before, after, topology.logicalCpus, options.excludePids ?? [process.pid])
      : undefined;

  const facts: Fact[] = [
    topologyFact(topology),
    ...(await smtFacts(root)),
    ...(await frequencyFacts(root, topology)),
    ...(await idleFacts(root, topology)),
    ...(await memoryFacts(root, topology, options.sharedBuffersBytes)),
    ...(await kernelFacts(root)),
    ...(await perfParanoidFacts(root, options.uid ?? process.getuid?.())),
    ...(await aslrFacts(root)),
    await virtualisationFact(root),
    ...loadFacts(
      window,
      windowS,
      await readText(root, 'proc/loadavg'),
      await readText(root, 'proc/pressure/cpu'),
    ),
    await nofileFact(root),
  ];
  return { verdict: overallVerdict(facts), facts, topology, windowS, capturedAt: new Date().toISOString() };
}

export function overallVerdict(facts: readonly Fact[]): PreflightVerdict {
  if (facts.some((f) => f.verdict === 'bad')) return 'not fit for benchmarking';
  if (facts.some((f) => f.verdict === 'warn')) return 'usable with warnings';
  return 'ready';
}

/** Facts as flat strings for results.json `environment.facts` (keys "preflight.<id>"). */
export function preflightFacts(report: PreflightReport): Record<string, string> {
  const out: Record<string, string> = { 'preflight.verdict': report.verdict };
  for (const f of report.facts) out[`preflight.${f.id}`] = `${f.value} [${f.verdict}]`;
  return out;
}

function topologyFact(t: Topology): Fact {
  return { id: 'topology', group: 'cpu', name: 'CPU topology', value: describeTopology(t), verdict: 'ok' };
}

/**
 * SMT (hyper-threading), reported, not judged: siblings share a core's execution units, so a backend and its
 * pgbench thread on two siblings slow each other, but a runner keeps one setting for all its runs (the
 * environment fingerprint records it) and `cpus: auto` keeps siblings on one side. Turning it off is the
 * quietest choice (docs/runner.md).
 */
async function smtFacts(root: string): Promise<Fact[]> {
  const control = await readValue(root, `${CPU_DIR}/smt/control`);
  if (control === undefined) return [];
  const active = await readInt(root, `${CPU_DIR}/smt/active`);
  const value =
    control === 'notsupported' || control === 'notimplemented'
      ? `not supported by this CPU or hypervisor (${control})`
      : `${active === 1 ? 'active' : 'inactive'} (control ${control})`;
  return [{ id: 'smt', group: 'cpu', name: 'SMT (hyper-threading)', value, verdict: 'ok' }];
}

/** Distinct values of a per-CPU file, with how many CPUs have each: "performance" or "powersave (16), performance (16)". */
async function perCpu(root: string, t: Topology, rel: string): Promise<string | undefined> {
  const counts = new Map<string, number>();
  for (const c of t.cpus) {
    const v = await readValue(root, `${CPU_DIR}/cpu${c.cpu}/${rel}`);
    if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  if (counts.size === 1) return [...counts.keys()][0];
  return [...counts.entries()].map(([v, n]) => `${v} (${n})`).join(', ');
}

async function frequencyFacts(root: string, t: Topology): Promise<Fact[]> {
  const driver = await perCpu(root, t, 'cpufreq/scaling_driver');
  const governor = await perCpu(root, t, 'cpufreq/scaling_governor');
  if (driver === undefined && governor === undefined) {
    return [
      {
        id: 'cpufreq',
        group: 'frequency',
        name: 'frequency scaling',
        value: 'not exposed (no cpufreq: the hypervisor or firmware sets the clock)',
        verdict: 'ok',
      },
    ];
  }
  const facts: Fact[] = [];
  const pstate =
    (await readValue(root, `${CPU_DIR}/intel_pstate/status`)) ??
    (await readValue(root, `${CPU_DIR}/amd_pstate/status`));
  facts.push({
    id: 'scalingDriver',
    group: 'frequency',
    name: 'frequency driver',
    value: `${driver ?? 'unknown'}${pstate ? ` (${pstate} mode)` : ''}`,
    verdict: 'ok',
  });
  const fixGovernor =
    'cpupower frequency-set -g performance   # or: echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor';
  facts.push(
    governor === 'performance'
      ? { id: 'governor', group: 'frequency', name: 'governor', value: governor, verdict: 'ok' }
      : {
          id: 'governor',
          group: 'frequency',
          name: 'governor',
          value: governor ?? 'unknown',
          verdict: 'warn',
          why: 'the clock ramps up with load, which skews low-client runs',
          fix: `${fixGovernor}   (or for the run only: pgperf run --governor performance)`,
        },
  );
  const epp = await perCpu(root, t, 'cpufreq/energy_performance_preference');
  if (epp !== undefined) {
    facts.push(
      epp === 'performance'
        ? { id: 'epp', group: 'frequency', name: 'energy/performance preference', value: epp, verdict: 'ok' }
        : {
            id: 'epp',
            group: 'frequency',
            name: 'energy/performance preference',
            value: epp,
            verdict: 'warn',
            why: 'the hardware trades speed for power',
            fix: 'echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference',
          },
    );
  }
  const boost = await readInt(root, `${CPU_DIR}/cpufreq/boost`);
  const noTurbo = await readInt(root, `${CPU_DIR}/intel_pstate/no_turbo`);
  if (boost !== undefined || noTurbo !== undefined) {
    const on = boost === 1 || noTurbo === 0;
    facts.push({
      id: 'boost',
      group: 'frequency',
      name: 'turbo/boost',
      value: on ? 'on' : 'off',
      verdict: on ? 'warn' : 'ok',
      ...(on
        ? {
            why: 'the boost clock depends on how many cores are busy, which bends client sweeps',
            fix:
              noTurbo !== undefined
                ? 'echo 1 | tee /sys/devices/system/cpu/intel_pstate/no_turbo'
                : 'echo 0 | tee /sys/devices/system/cpu/cpufreq/boost',
          }
        : {}),
    });
  }
  return facts;
}

export interface IdleState {
  name: string;
  latencyUs: number;
  disabled: boolean;
}

async function idleFacts(root: string, t: Topology): Promise<Fact[]> {
  const driver = await readValue(root, `${CPU_DIR}/cpuidle/current_driver`);
  const governor =
    (await readValue(root, `${CPU_DIR}/cpuidle/current_governor_ro`)) ??
    (await readValue(root, `${CPU_DIR}/cpuidle/current_governor`));
  const first = t.cpus[0]?.cpu ?? 0;
  const states: IdleState[] = [];
  const dir = `${CPU_DIR}/cpu${first}/cpuidle`;
  const entries = (await listDir(root, dir, /^state\d+$/)).sort(
    (a, b) => Number(a.slice(5)) - Number(b.slice(5)),
  );
  for (const s of entries) {
    states.push({
      name: (await readValue(root, `${dir}/${s}/name`)) ?? s,
      latencyUs: (await readInt(root, `${dir}/${s}/latency`)) ?? 0,
      disabled: (await readInt(root, `${dir}/${s}/disable`)) === 1,
    });
  }
  const listed = states.map((s) => `${s.name} ${s.latencyUs}µs${s.disabled ? ' (disabled)' : ''}`).join(', ');
  const value =
    driver === undefined || driver === 'none'
      ? 'no cpuidle driver'
      : `${driver}${governor ? `/${governor}` : ''}${listed ? `: ${listed}` : ''}`;
  const deep = states.filter((s) => !s.disabled && s.latencyUs > LIMITS.deepIdleLatencyUs);
  if (deep.length === 0) return [{ id: 'cpuidle', group: 'idle', name: 'idle states', value, verdict: 'ok' }];
  const worst = Math.max(...deep.map((s) => s.latencyUs));
  return [
    {
      id: 'cpuidle',
      group: 'idle',
      name: 'idle states',
      value,
      verdict: 'warn',
      why: `deep idle states are enabled (${deep.map((s) => s.name).join(', ')}; wake-up up to ${worst}µs): idle cores between queries sleep deeply, the effect behind many-core throughput dips`,
      fix: `cpupower idle-set -D ${LIMITS.deepIdleLatencyUs}   (or for the run only: pgperf run --cpu-dma-latency 0)`,
    },
  ];
}

async function memoryFacts(root: string, t: Topology, sharedBuffers: number | undefined): Promise<Fact[]> {
  const facts: Fact[] = [];
  const meminfo = (await readText(root, 'proc/meminfo')) ?? '';
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(meminfo);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const available = kb('MemAvailable');
  const total = kb('MemTotal');
  if (available !== undefined) {
    const need = sharedBuffers;
    let verdict: FactVerdict = 'ok';
    let why: string | undefined;
    if (need !== undefined && available < need) {
      verdict = 'bad';
      why = `less memory is available than shared_buffers (${formatBytes(need)}): the server will swap or fail to start`;
    } else if (need !== undefined && available < 2 * need) {
      verdict = 'warn';
      why = `less than twice shared_buffers (${formatBytes(need)}) is available: backends and the page cache compete`;
    } else if (need === undefined && available < LIMITS.minAvailableBytes) {
      verdict = 'warn';
      why = `less than ${formatBytes(LIMITS.minAvailableBytes)} is available`;
    }
    facts.push({
      id: 'memory',
      group: 'memory',
      name: 'available memory',
      value: `${formatBytes(available)} of ${total ? formatBytes(total) : '?'}${need !== undefined ? ` (shared_buffers ${formatBytes(need)})` : ''}`,
      verdict,
      ...(why
        ? { why, fix: 'stop other memory users, or lower shared_buffers in the workload settings' }
        : {}),
    });
  }
  const thpRaw = await readValue(root, 'sys/kernel/mm/transparent_hugepage/enabled');
  if (thpRaw !== undefined) {
    const thp = /\[(\w+)\]/.exec(thpRaw)?.[1] ?? thpRaw;
    facts.push({
      id: 'thp',
      group: 'memory',
      name: 'transparent huge pages',
      value: thp,
      verdict: thp === 'always' ? 'warn' : 'ok',
      ...(thp === 'always'
        ? {
            why: 'khugepaged compacts and collapses backend memory during runs',
            fix: 'echo madvise | tee /sys/kernel/mm/transparent_hugepage/enabled',
          }
        : {}),
    });
  }
  const balancing = await readInt(root, 'proc/sys/kernel/numa_balancing');
  if (balancing !== undefined) {
    const moving = balancing !== 0 && t.numaNodes.length > 1;
    facts.push({
      id: 'numaBalancing',
      group: 'memory',
      name: 'NUMA balancing',
      value: `${balancing === 0 ? 'off' : 'on'} (${t.numaNodes.length} node${t.numaNodes.length === 1 ? '' : 's'})`,
      verdict: moving ? 'warn' : 'ok',
      ...(moving
        ? {
            why: 'the kernel migrates pages and tasks between nodes during runs',
            fix: 'sysctl -w kernel.numa_balancing=0',
          }
        : {}),
    });
  }
  return facts;
}

const GOOD_CLOCKSOURCES = ['tsc', 'kvm-clock', 'arch_sys_counter', 'hyperv_clocksource_tsc_page', 'timebase'];

async function kernelFacts(root: string): Promise<Fact[]> {
  const current = await readValue(root, 'sys/devices/system/clocksource/clocksource0/current_clocksource');
  if (current === undefined) return [];
  const available =
    (await readValue(root, 'sys/devices/system/clocksource/clocksource0/available_clocksource')) ?? '';
  const slow = current === 'hpet' || current === 'acpi_pm';
  const good = GOOD_CLOCKSOURCES.includes(current);
  const better =
    available.split(/\s+/).find((c) => c === 'tsc') ??
    available.split(/\s+/).find((c) => GOOD_CLOCKSOURCES.includes(c));
  return [
    {
      id: 'clocksource',
      group: 'kernel',
      name: 'clocksource',
      value: `${current}${available ? ` (available: ${available})` : ''}`,
      verdict: good ? 'ok' : slow ? 'bad' : 'warn',
      ...(good
        ? {}
        : {
            why: `clock_gettime through ${current} is slow; pgbench -P and track_io_timing call it constantly`,
            fix: better
              ? `echo ${better} | tee /sys/devices/system/clocksource/clocksource0/current_clocksource`
              : 'boot with a stable TSC (check dmesg for "TSC unstable") or use another machine',
          }),
    },
  ];
}

/**
 * kernel.perf_event_paranoid: above 2 (Debian's default is 3) no unprivileged process may open a perf event,
 * so the instruction mode's CPU counter (`perf stat -e instructions:u`) is unavailable to a pgperf that is not
 * root and `--instruction-counter auto` falls back to cachegrind. 2 (the upstream default) lets a user count
 * its own processes in user space, which is all pgperf asks. Root is not limited.
 */
async function perfParanoidFacts(root: string, uid: number | undefined): Promise<Fact[]> {
  const level = await readInt(root, 'proc/sys/kernel/perf_event_paranoid');
  if (level === undefined) return [];
  const asRoot = uid === 0;
  const limited = level > LIMITS.perfParanoidMax && !asRoot;
  return [
    {
      id: 'perfEventParanoid',
      group: 'kernel',
      name: 'perf_event_paranoid',
      value: `${level}${level > LIMITS.perfParanoidMax ? ' (no perf events for unprivileged users)' : ''}${asRoot ? ' (pgperf runs as root: not limited)' : ''}`,
      verdict: limited ? 'warn' : 'ok',
      ...(limited
        ? {
            why: 'perf cannot count instructions for this user: the instruction mode falls back to cachegrind, which runs the server 20-50x slower',
            fix: `sysctl -w kernel.perf_event_paranoid=${LIMITS.perfParanoidMax}   (keep it: echo 'kernel.perf_event_paranoid = ${LIMITS.perfParanoidMax}' > /etc/sysctl.d/60-pgperf.conf)`,
          }
        : {}),
    },
  ];
}

/**
 * kernel.randomize_va_space (ASLR), reported, not judged: with it on every server start gets a new memory
 * layout, so a layout that happens to favour one build does not favour it in every run; with it off each build
 * keeps one layout, which makes repeated runs more alike but keeps that build's layout luck in all of them.
 * Either way the setting must stay the same across the runs a series compares (docs/runner.md).
 */
async function aslrFacts(root: string): Promise<Fact[]> {
  const level = await readInt(root, 'proc/sys/kernel/randomize_va_space');
  if (level === undefined) return [];
  const meaning: Record<number, string> = {
    0: 'off',
    1: 'on (stack, mmap, vDSO)',
    2: 'on (stack, mmap, vDSO and heap)',
  };
  return [
    {
      id: 'aslr',
      group: 'kernel',
      name: 'address space layout randomisation',
      value: `${meaning[level] ?? 'unknown'} (randomize_va_space ${level})`,
      verdict: 'ok',
    },
  ];
}

async function virtualisationFact(root: string): Promise<Fact> {
  const cpuinfo = (await readText(root, 'proc/cpuinfo')) ?? '';
  const flagged = /^flags\s*:.*\bhypervisor\b/m.test(cpuinfo);
  const xen = await readValue(root, 'sys/hypervisor/type');
  const product = await readValue(root, 'sys/class/dmi/id/product_name');
  const vendor = await readValue(root, 'sys/class/dmi/id/sys_vendor');
  const dmiVm =
    /kvm|qemu|vmware|virtualbox|virtual machine|hvm domu|google compute|amazon ec2|bochs|standard pc/i.test(
      `${product ?? ''} ${vendor ?? ''}`,
    );
  const vm = flagged || xen !== undefined || dmiVm;
  const evidence = [
    flagged ? 'cpuinfo hypervisor flag' : undefined,
    xen ? `/sys/hypervisor/type ${xen}` : undefined,
    product ? `DMI product "${product}"` : undefined,
  ].filter((e) => e !== undefined);
  return {
    id: 'virtualisation',
    group: 'virtualisation',
    name: 'virtualisation',
    value: `${vm ? 'virtual machine' : 'bare metal'}${evidence.length ? ` (${evidence.join(', ')})` : ''}`,
    verdict: vm ? 'warn' : 'ok',
    ...(vm
      ? {
          why: 'other guests share the host: steal time and host scheduling add noise',
          fix: 'gate on a bare-metal runner or a VM with dedicated (pinned) vCPUs',
        }
      : {}),
  };
}

const QUIET_FIX = 'stop them, or keep them off the benchmark CPUs: taskset -apc <other CPUs> <pid>';

function loadFacts(
  window: LoadWindow | undefined,
  windowS: number,
  loadavgText: string | undefined,
  psiText: string | undefined,
): Fact[] {
  const facts: Fact[] = [];
  const loadavg = loadavgText?.trim().split(/\s+/).slice(0, 3).join(' ');
  if (window && windowS > 0) {
    facts.push(
      graded({
        id: 'busy',
        group: 'load',
        name: 'CPU busy',
        value: `${pct(window.busyShare)} of all CPUs over ${windowS} s${loadavg ? ` (loadavg ${loadavg})` : ''}`,
        x: window.busyShare,
        warnAt: LIMITS.busyShareWarn,
        badAt: LIMITS.busyShareBad,
        why: 'other work competes with the benchmark for CPUs',
        fix: QUIET_FIX,
      }),
      graded({
        id: 'steal',
        group: 'load',
        name: 'steal time',
        value: `${pct(window.stealShare)} over ${windowS} s`,
        x: window.stealShare,
        warnAt: LIMITS.stealShareWarn,
        badAt: LIMITS.stealShareBad,
        why: 'the hypervisor runs other guests on these CPUs',
        fix: 'use a runner with dedicated vCPUs or bare metal',
      }),
      busyProcessesFact(window.processes, windowS),
    );
  } else if (loadavg) {
    facts.push({ id: 'loadavg', group: 'load', name: 'load average', value: loadavg, verdict: 'ok' });
  }
  const some = psiText && /^some .*avg10=([\d.]+)/m.exec(psiText)?.[1];
  if (some) {
    facts.push(
      graded({
        id: 'psiCpu',
        group: 'load',
        name: 'CPU pressure (PSI some avg10)',
        value: `${some}%`,
        x: Number(some),
        warnAt: LIMITS.psiWarn,
        badAt: LIMITS.psiBad,
        why: 'runnable tasks waited for a CPU in the last 10 s',
        fix: QUIET_FIX,
      }),
    );
  }
  return facts;
}

function busyProcessesFact(processes: BusyProcess[], windowS: number): Fact {
  const listed = processes.filter((p) => p.cpus >= LIMITS.listProcessCpus);
  const sum = processes.reduce((a, p) => a + p.cpus, 0);
  const top = listed.slice(0, 5).map((p) => `${p.comm} (pid ${p.pid}) ${p.cpus.toFixed(2)} CPU`);
  return graded({
    id: 'busyProcesses',
    group: 'load',
    name: 'other busy processes',
    value: top.length ? `${top.join(', ')}; ${sum.toFixed(2)} CPU in all over ${windowS} s` : 'none',
    x: sum,
    warnAt: LIMITS.otherCpusWarn,
    badAt: LIMITS.otherCpusBad,
    why: 'these processes used CPU during the sample window',
    fix: QUIET_FIX,
  });
}

async function nofileFact(root: string): Promise<Fact> {
  const limits = (await readText(root, 'proc/self/limits')) ?? '';
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  const soft = m ? (m[1] === 'unlimited' ? Infinity : Number(m[1])) : undefined;
  const hard = m?.[2];
  if (soft === undefined) {
    return { id: 'nofile', group: 'limits', name: 'open files (ulimit -n)', value: 'unknown', verdict: 'ok' };
  }
  const verdict: FactVerdict = soft < LIMITS.nofileBad ? 'bad' : soft < LIMITS.nofileWarn ? 'warn' : 'ok';
  return {
    id: 'nofile',
    group: 'limits',
    name: 'open files (ulimit -n)',
    value: `${m![1]} (hard ${hard})`,
    verdict,
    ...(verdict === 'ok'
      ? {}
      : {
          why: 'pgbench needs a descriptor per client; high client counts fail with "too many open files"',
          fix: `ulimit -n ${hard === 'unlimited' ? 65536 : Math.min(65536, Number(hard) || 65536)}   (in the shell that starts pgperf; raise the hard limit in /etc/security/limits.conf or LimitNOFILE= for a service)`,
        }),
  };
}

function graded(f: {
  id: string;
  group: FactGroup;
  name: string;
  value: string;
  x: number;
  warnAt: number;
  badAt: number;
  why: string;
  fix: string;
}): Fact {
  const verdict: FactVerdict = f.x >= f.badAt ? 'bad' : f.x >= f.warnAt ? 'warn' : 'ok';
  return {
    id: f.id,
    group: f.group,
    name: f.name,
    value: f.value,
    verdict,
    ...(verdict === 'ok' ? {} : { why: f.why, fix: f.fix }),
  };
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
