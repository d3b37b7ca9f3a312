import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import type { PgbenchWorkload } from '../../../src/drivers/workload.js';
import { threadsFor } from '../../../src/drivers/pgbench/pgbench-command.js';
import { formatCpuList } from '../../../src/machine/sysfs.js';
import { readTopology } from '../../../src/machine/topology.js';
import { autoSplit, findPinningTools, planCpus, withCpuPrefix } from '../../../src/machine/pinning.js';

const fixture = (name: string) => new URL(`../../fixtures/sysfs/${name}`, import.meta.url).pathname;
const intel = await readTopology(fixture('intel-2s-smt'));
const epyc = await readTopology(fixture('epyc-many-ccx'));
const kvm = await readTopology(fixture('kvm-guest'));
const taskset = { taskset: '/usr/bin/taskset' };
const both = { taskset: '/usr/bin/taskset', numactl: '/usr/bin/numactl' };

describe('planCpus: explicit lists', () => {
  it('taskset prefixes when numactl is absent', () => {
    const plan = planCpus({ server: '0-3', client: '4-7' }, intel, taskset);
    expect(plan).toMatchObject({ server: [0, 1, 2, 3], client: [4, 5, 6, 7], tool: 'taskset' });
    expect(plan.serverPrefix).toEqual(['/usr/bin/taskset', '-c', '0-3']);
    expect(plan.clientPrefix).toEqual(['/usr/bin/taskset', '-c', '4-7']);
  });

  it('numactl binds the server memory to its nodes', () => {
    const plan = planCpus({ server: '0-7,16-23', client: '8-15,24-31' }, intel, both);
    expect(plan.serverPrefix).toEqual(['/usr/bin/numactl', '--physcpubind=0-7,16-23', '--membind=0']);
    expect(plan.clientPrefix).toEqual(['/usr/bin/numactl', '--physcpubind=8-15,24-31']);
    expect([plan.serverNodes, plan.clientNodes]).toEqual([[0], [1]]);
    expect(plan.warnings).toEqual([]);
  });

  it('warns when SMT siblings end up on both sides or the server spans nodes', () => {
    const plan = planCpus({ server: '0-8', client: '16-17' }, intel, both);
    expect(plan.warnings.join('\n')).toContain('server CPUs 0-1 share cores (SMT siblings) with client CPUs');
    expect(plan.warnings.join('\n')).toContain('the server spans NUMA nodes 0,1');
  });

  it.each([
    [
      { server: '0-3', client: '64' },
      'cpus.client: CPU 64 of "64" does not exist on this machine (online CPUs: 0-31)',
    ],
    [{ server: '30-40', client: '0' }, 'cpus.server: CPUs 32-40 of "30-40" do not exist on this machine'],
    [
      { server: '0-3', client: '3-5' },
      'cpus: server "0-3" and client "3-5" overlap on CPU 3; give each side its own CPUs',
    ],
    [{ server: 'all', client: '1' }, 'cpus.server: "all" is not a CPU list like 0-3,8,10-11'],
    [{ server: '', client: '1' }, 'cpus.server: expected a CPU list like 0-3, got ""'],
  ])('refuses %j', (spec, message) => {
    expect(() => planCpus(spec, intel, taskset)).toThrow(message);
  });

  it('without taskset or numactl: a clear error naming the field', () => {
    expect(() => planCpus({ server: '0', client: '1' }, kvm, {}, 'workload w: cpus')).toThrow(
      'workload w: cpus: pinning needs taskset (util-linux) or numactl, and neither is on the PATH',
    );
  });
});

describe('planCpus: auto', () => {
  it('2-socket Intel: one socket (node) each, siblings together', () => {
    const { server, client } = autoSplit(intel);
    expect([formatCpuList(server), formatCpuList(client)]).toEqual(['0-7,16-23', '8-15,24-31']);
  });

  it('EPYC NPS2: one node each', () => {
    const plan = planCpus('auto', epyc, both);
    expect([formatCpuList(plan.server), formatCpuList(plan.client)]).toEqual(['0-15,32-47', '16-31,48-63']);
    expect(plan.serverPrefix.at(-1)).toBe('--membind=0');
    expect(plan.warnings).toEqual([]);
  });

  it('one node: whole cores split in L3 order, the server taking the larger half', async () => {
    // The EPYC tree seen as one node (NPS1): drop the node split, keep the 8 L3 groups.
    const nps1 = {
      ...epyc,
      numaNodes: [{ node: 0, cpus: epyc.cpus.map((c) => c.cpu) }],
      cpus: epyc.cpus.map((c) => ({ ...c, node: 0 })),
    };
    const { server, client } = autoSplit(nps1);
    expect([formatCpuList(server), formatCpuList(client)]).toEqual(['0-15,32-47', '16-31,48-63']);
    const odd = await readTopology(fixture('kvm-guest'));
    expect(autoSplit(odd)).toEqual({ server: [0], client: [1] });
  });

  it('one core cannot be split', () => {
    const single = { ...kvm, cpus: kvm.cpus.slice(0, 1), logicalCpus: 1, cores: 1 };
    expect(() => autoSplit(single)).toThrow(
      'cpus: "auto" needs at least 2 cores to split between server and clients, this machine has 1',
    );
  });
});

describe('prefix helpers', () => {
  it('puts the command after the prefix, or leaves it alone', () => {
    expect(withCpuPrefix(['/usr/bin/taskset', '-c', '1'], '/bin/pgbench', ['-c', '4'])).toEqual({
      command: '/usr/bin/taskset',
      args: ['-c', '1', '/bin/pgbench', '-c', '4'],
    });
    expect(withCpuPrefix(undefined, '/bin/pgbench', ['-c', '4'])).toEqual({
      command: '/bin/pgbench',
      args: ['-c', '4'],
    });
  });

  it('finds taskset on a PATH and nothing on an empty one', async () => {
    expect((await findPinningTools('/nonexistent:/usr/bin:/bin')).taskset).toMatch(/\/taskset$/);
    expect(await findPinningTools('')).toEqual({});
  });
});

describe('pgbench -j when pinned', () => {
  const w = (threads: string) =>
    parseWorkload(
      `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nthreads: ${threads}\n`,
      'w.yml',
    ) as PgbenchWorkload;

  it('auto follows the client CPUs, not the machine, and never exceeds the clients', () => {
    expect(threadsFor(w('auto'), 64, 128, 16)).toBe(16);
    expect(threadsFor(w('auto'), 8, 128, 16)).toBe(8);
    expect(threadsFor(w('auto'), 64, 128)).toBe(64);
    expect(threadsFor(w('clients'), 64, 128, 16)).toBe(64);
    expect(threadsFor(w('4'), 64, 128, 16)).toBe(4);
  });
});
