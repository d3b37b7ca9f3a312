import { describe, expect, it } from 'vitest';
import { formatCpuList, parseCpuList } from '../../../src/machine/sysfs.js';
import { describeTopology, readTopology } from '../../../src/machine/topology.js';

const fixture = (name: string) => new URL(`../../fixtures/sysfs/${name}`, import.meta.url).pathname;

describe('CPU lists', () => {
  it.each([
    ['0', [0]],
    ['0-3', [0, 1, 2, 3]],
    ['0-1,16-17', [0, 1, 16, 17]],
    ['4,2,2-3', [2, 3, 4]],
    ['', []],
  ])('parses "%s"', (text, cpus) => {
    expect(parseCpuList(text)).toEqual(cpus);
  });

  it.each(['a', '3-1', '1,,2', '-1'])('refuses "%s", naming it', (text) => {
    expect(() => parseCpuList(text, 'cpus.server')).toThrow(/cpus\.server/);
  });

  it('formats the shortest list and round-trips', () => {
    expect(formatCpuList([3, 0, 1, 2, 8, 10, 11])).toBe('0-3,8,10-11');
    expect(parseCpuList(formatCpuList([5, 7, 6, 40]))).toEqual([5, 6, 7, 40]);
  });
});

describe('readTopology', () => {
  it('2-socket Intel with SMT: siblings N and N+16, one L3 and one node per socket, gapped core ids', async () => {
    const t = await readTopology(fixture('intel-2s-smt'));
    expect(t).toMatchObject({ logicalCpus: 32, sockets: 2, cores: 16, threadsPerCore: 2, smtControl: 'on' });
    expect(t.numaNodes).toEqual([
      { node: 0, cpus: parseCpuList('0-7,16-23') },
      { node: 1, cpus: parseCpuList('8-15,24-31') },
    ]);
    expect(t.l3Groups.map((g) => formatCpuList(g))).toEqual(['0-7,16-23', '8-15,24-31']);
    const cpu21 = t.cpus.find((c) => c.cpu === 21)!;
    expect(cpu21).toMatchObject({ socket: 0, node: 0, siblings: [5, 21], core: 8 });
    expect(describeTopology(t)).toBe('2 sockets, 2 NUMA nodes, 16 cores, 32 CPUs (SMT 2), 2 L3 groups');
  });

  it('EPYC with 8 CCDs and NPS2: 8 L3 groups of 4 cores, 2 nodes on one socket', async () => {
    const t = await readTopology(fixture('epyc-many-ccx'));
    expect(t).toMatchObject({ logicalCpus: 64, sockets: 1, cores: 32, threadsPerCore: 2 });
    expect(t.numaNodes.map((n) => formatCpuList(n.cpus))).toEqual(['0-15,32-47', '16-31,48-63']);
    expect(t.l3Groups).toHaveLength(8);
    expect(t.l3Groups.map((g) => formatCpuList(g))[1]).toBe('4-7,36-39');
    for (const g of t.l3Groups) expect(g).toHaveLength(8);
  });

  it('KVM guest captured from the development VM: 2 CPUs, no SMT, one node, one L3', async () => {
    const t = await readTopology(fixture('kvm-guest'));
    expect(t).toMatchObject({
      logicalCpus: 2,
      sockets: 1,
      cores: 2,
      threadsPerCore: 1,
      smtControl: 'notsupported',
    });
    expect(t.numaNodes).toEqual([{ node: 0, cpus: [0, 1] }]);
    expect(t.l3Groups).toEqual([[0, 1]]);
  });

  it('a missing tree reads as no CPUs rather than guesses', async () => {
    const t = await readTopology(fixture('does-not-exist'));
    expect(t.logicalCpus).toBe(0);
  });
});
