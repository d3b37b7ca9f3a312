import { describe, expect, it } from 'vitest';
import {
  loadWindow,
  parsePidStat,
  parseProcStat,
  takeLoadSnapshot,
} from '../../../src/machine/load-sample.js';
import { overallVerdict, preflight, preflightFacts, type Fact } from '../../../src/machine/preflight.js';

const fixture = (name: string) => new URL(`../../fixtures/sysfs/${name}`, import.meta.url).pathname;
const byId = (facts: Fact[]) => Object.fromEntries(facts.map((f) => [f.id, f]));

describe('preflight on fixture trees', () => {
  it('2-socket Intel: governor, EPP, turbo, deep C6, THP always, NUMA balancing and ulimit are warnings with fixes', async () => {
    const r = await preflight({ root: fixture('intel-2s-smt'), windowS: 0 });
    const f = byId(r.facts);
    expect(r.verdict).toBe('usable with warnings');
    expect(f.governor).toMatchObject({ value: 'powersave', verdict: 'warn' });
    expect(f.governor!.fix).toContain('cpupower frequency-set -g performance');
    expect(f.epp).toMatchObject({ value: 'balance_performance', verdict: 'warn' });
    expect(f.boost).toMatchObject({ value: 'on', verdict: 'warn' });
    expect(f.boost!.fix).toBe('echo 1 | tee /sys/devices/system/cpu/intel_pstate/no_turbo');
    expect(f.cpuidle!.verdict).toBe('warn');
    expect(f.cpuidle!.value).toBe('intel_idle/menu: POLL 0µs, C1 2µs, C1E 10µs, C6 133µs');
    expect(f.cpuidle!.why).toContain('C6');
    expect(f.cpuidle!.why).not.toContain('C1E'); // 10 µs is not deep
    expect(f.thp).toMatchObject({ value: 'always', verdict: 'warn' });
    expect(f.numaBalancing).toMatchObject({
      value: 'on (2 nodes)',
      verdict: 'warn',
      fix: 'sysctl -w kernel.numa_balancing=0',
    });
    expect(f.clocksource!.verdict).toBe('ok');
    expect(f.virtualisation).toMatchObject({ verdict: 'ok' });
    expect(f.virtualisation!.value).toMatch(/^bare metal/);
    expect(f.nofile).toMatchObject({ value: '1024 (hard 4096)', verdict: 'warn' });
    expect(f.nofile!.fix).toMatch(/^ulimit -n 4096/);
    for (const fact of r.facts) if (fact.verdict !== 'ok') expect(fact.fix).toBeTruthy();
  });

  it('EPYC: acpi-cpufreq schedutil, boost on, C2 at 400 µs; THP madvise and a high ulimit are fine', async () => {
    const r = await preflight({ root: fixture('epyc-many-ccx'), windowS: 0 });
    const f = byId(r.facts);
    expect(f.topology!.value).toBe('1 socket, 2 NUMA nodes, 32 cores, 64 CPUs (SMT 2), 8 L3 groups');
    expect(f.governor).toMatchObject({ value: 'schedutil', verdict: 'warn' });
    expect(f.epp).toBeUndefined();
    expect(f.boost!.fix).toBe('echo 0 | tee /sys/devices/system/cpu/cpufreq/boost');
    expect(f.cpuidle!.why).toContain('400µs');
    expect(f.thp!.verdict).toBe('ok');
    expect(f.nofile!.verdict).toBe('ok');
  });

  it('KVM guest: no cpufreq, a VM (warn), and the captured PSI of a busy machine is bad', async () => {
    const r = await preflight({ root: fixture('kvm-guest'), windowS: 0 });
    const f = byId(r.facts);
    expect(f.cpufreq!.verdict).toBe('ok');
    expect(f.governor).toBeUndefined();
    expect(f.virtualisation!.verdict).toBe('warn');
    expect(f.virtualisation!.value).toContain('cpuinfo hypervisor flag');
    expect(f.clocksource!.value).toMatch(/^tsc/);
    expect(f.psiCpu!.verdict).toBe('bad');
    expect(r.verdict).toBe('not fit for benchmarking');
  });

  it('SMT and ASLR are reported; perf_event_paranoid above 2 warns only when pgperf is not root', async () => {
    const intel = byId((await preflight({ root: fixture('intel-2s-smt'), windowS: 0, uid: 1000 })).facts);
    expect(intel.smt).toMatchObject({ value: 'active (control on)', verdict: 'ok', group: 'cpu' });
    expect(intel.aslr).toMatchObject({
      value: 'on (stack, mmap, vDSO and heap) (randomize_va_space 2)',
      verdict: 'ok',
    });
    expect(intel.perfEventParanoid).toMatchObject({
      value: '3 (no perf events for unprivileged users)',
      verdict: 'warn',
      fix: "sysctl -w kernel.perf_event_paranoid=2   (keep it: echo 'kernel.perf_event_paranoid = 2' > /etc/sysctl.d/60-pgperf.conf)",
    });
    expect(intel.perfEventParanoid!.why).toContain('falls back to cachegrind');
    const asRoot = byId((await preflight({ root: fixture('intel-2s-smt'), windowS: 0, uid: 0 })).facts);
    expect(asRoot.perfEventParanoid).toMatchObject({
      value: '3 (no perf events for unprivileged users) (pgperf runs as root: not limited)',
      verdict: 'ok',
    });
    const epyc = byId((await preflight({ root: fixture('epyc-many-ccx'), windowS: 0, uid: 1000 })).facts);
    expect(epyc.perfEventParanoid).toMatchObject({ value: '2', verdict: 'ok' });
    expect(epyc.aslr).toMatchObject({ value: 'off (randomize_va_space 0)', verdict: 'ok' });
    const guest = byId((await preflight({ root: fixture('kvm-guest'), windowS: 0 })).facts);
    expect(guest.smt).toMatchObject({ value: 'not supported by this CPU or hypervisor (notsupported)' });
  });

  it('memory is judged against the shared_buffers the run will use', async () => {
    const GiB = 1024 ** 3;
    const ok = byId(
      (await preflight({ root: fixture('kvm-guest'), windowS: 0, sharedBuffersBytes: 1 * GiB })).facts,
    );
    const tight = byId(
      (await preflight({ root: fixture('kvm-guest'), windowS: 0, sharedBuffersBytes: 15 * GiB })).facts,
    );
    const over = byId(
      (await preflight({ root: fixture('kvm-guest'), windowS: 0, sharedBuffersBytes: 64 * GiB })).facts,
    );
    expect([ok.memory!.verdict, tight.memory!.verdict, over.memory!.verdict]).toEqual(['ok', 'warn', 'bad']);
  });

  it('the window waits as asked and then samples again; facts flatten for results.json', async () => {
    const waited: number[] = [];
    const r = await preflight({
      root: fixture('intel-2s-smt'),
      windowS: 3,
      sleep: async (ms) => {
        waited.push(ms);
      },
    });
    expect(waited).toEqual([3000]);
    // The same snapshot twice: nothing moved, so no load.
    expect(byId(r.facts).busy).toMatchObject({
      verdict: 'ok',
      value: expect.stringMatching(/^0\.0% of all CPUs over 3 s/),
    });
    const flat = preflightFacts(r);
    expect(flat['preflight.verdict']).toBe('usable with warnings');
    expect(flat['preflight.governor']).toBe('powersave [warn]');
  });

  it('this machine: every fact has a verdict, and non-ok facts a fix', async () => {
    const r = await preflight({ windowS: 0.2 });
    expect(r.facts.length).toBeGreaterThan(5);
    expect(r.topology.logicalCpus).toBeGreaterThan(0);
    for (const f of r.facts) {
      expect(['ok', 'warn', 'bad']).toContain(f.verdict);
      if (f.verdict !== 'ok') expect(f.fix).toBeTruthy();
    }
  });

  it('the overall verdict is the worst fact', () => {
    const fact = (verdict: Fact['verdict']): Fact => ({
      id: 'x',
      group: 'cpu',
      name: 'x',
      value: 'x',
      verdict,
    });
    expect(overallVerdict([fact('ok')])).toBe('ready');
    expect(overallVerdict([fact('ok'), fact('warn')])).toBe('usable with warnings');
    expect(overallVerdict([fact('warn'), fact('bad')])).toBe('not fit for benchmarking');
  });
});

describe('load window', () => {
  it('parses /proc/stat and pid stat lines, also commands with spaces and parentheses', () => {
    expect(parseProcStat('cpu  10 1 5 100 4 0 2 3 0 0\ncpu0 1 2 3 4\n')).toEqual({
      total: 125,
      idle: 104,
      steal: 3,
    });
    const p = parsePidStat(
      '4242 (my (odd) proc) S 1 4242 4242 0 -1 4194560 100 0 0 0 70 30 0 0 20 0 1 0 5 0 0',
    );
    expect(p).toEqual({ pid: 4242, comm: 'my (odd) proc', cpu: 100 });
  });

  it('captured 2 s apart on the development VM while other agents compiled: busy, with named processes', async () => {
    const before = (await takeLoadSnapshot(fixture('kvm-guest-window/t0')))!;
    const after = (await takeLoadSnapshot(fixture('kvm-guest-window/t1')))!;
    const w = loadWindow(before, after, 2);
    expect(w.busyShare).toBeGreaterThan(0.5);
    expect(w.stealShare).toBeGreaterThanOrEqual(0);
    expect(w.processes.length).toBeGreaterThan(0);
    const top = w.processes[0]!;
    expect(top.cpus).toBeGreaterThan(0);
    for (let i = 1; i < w.processes.length; i++)
      expect(w.processes[i]!.cpus).toBeLessThanOrEqual(w.processes[i - 1]!.cpus);
    expect(loadWindow(before, after, 2, [top.pid]).processes.map((p) => p.pid)).not.toContain(top.pid);
  });
});
