/**
 * The CPU topology of a machine as sysfs describes it: sockets, NUMA nodes, physical cores, SMT
 * siblings and last-level-cache (L3, on EPYC one per CCX/CCD) groups. Pinning keeps SMT siblings on
 * one side and sides within NUMA nodes; reports record it so results from different layouts are
 * never mixed silently. Read from a root directory so fixture trees of other machines parse alike.
 */
import { formatCpuList, listDir, parseCpuList, readInt, readValue } from './sysfs.js';
import type { LogicalCpu, Topology } from '../core/results/result-types.js';
export type { LogicalCpu, Topology };

const CPU_DIR = 'sys/devices/system/cpu';
const NODE_DIR = 'sys/devices/system/node';

/** Reads the topology under `root` (default '/'). */
export async function readTopology(root = '/'): Promise<Topology> {
  const onlineText =
    (await readValue(root, `${CPU_DIR}/online`)) ?? (await readValue(root, `${CPU_DIR}/present`));
  let online: number[];
  if (onlineText !== undefined) {
    online = parseCpuList(onlineText, `${CPU_DIR}/online`);
  } else {
    online = (await listDir(root, CPU_DIR, /^cpu\d+$/)).map((e) => Number(e.slice(3))).sort((a, b) => a - b);
  }
  const nodeOf = await readNodes(root);
  const cpus: LogicalCpu[] = [];
  for (const cpu of online) {
    const base = `${CPU_DIR}/cpu${cpu}`;
    const siblingsText = await readValue(root, `${base}/topology/thread_siblings_list`);
    const l3 = await readL3(root, base);
    cpus.push({
      cpu,
      socket: (await readInt(root, `${base}/topology/physical_package_id`)) ?? 0,
      core: (await readInt(root, `${base}/topology/core_id`)) ?? cpu,
      node: nodeOf.get(cpu) ?? 0,
      siblings: siblingsText ? parseCpuList(siblingsText, `${base}/topology/thread_siblings_list`) : [cpu],
      ...(l3 ? { l3 } : {}),
    });
  }
  return summarise(cpus, await readValue(root, `${CPU_DIR}/smt/control`), nodeOf.size > 0);
}

async function readNodes(root: string): Promise<Map<number, number>> {
  const nodeOf = new Map<number, number>();
  for (const entry of await listDir(root, NODE_DIR, /^node\d+$/)) {
    const list = await readValue(root, `${NODE_DIR}/${entry}/cpulist`);
    if (!list) continue;
    for (const cpu of parseCpuList(list, `${NODE_DIR}/${entry}/cpulist`))
      nodeOf.set(cpu, Number(entry.slice(4)));
  }
  return nodeOf;
}

/** The shared_cpu_list of the cache whose level is 3 (index3 on x86, but the index is not promised). */
async function readL3(root: string, base: string): Promise<number[] | undefined> {
  for (const index of await listDir(root, `${base}/cache`, /^index\d+$/)) {
    if ((await readInt(root, `${base}/cache/${index}/level`)) !== 3) continue;
    const list = await readValue(root, `${base}/cache/${index}/shared_cpu_list`);
    if (list) return parseCpuList(list, `${base}/cache/${index}/shared_cpu_list`);
  }
  return undefined;
}

function summarise(cpus: LogicalCpu[], smtControl: string | undefined, hasNodes: boolean): Topology {
  const groups = (key: (c: LogicalCpu) => string | undefined) => {
    const byKey = new Map<string, number[]>();
    for (const c of cpus) {
      const k = key(c);
      if (k === undefined) continue;
      byKey.set(k, [...(byKey.get(k) ?? []), c.cpu]);
    }
    return [...byKey.values()];
  };
  const cores = groups((c) => formatCpuList(c.siblings)).length;
  const nodes = new Map<number, number[]>();
  for (const c of cpus) nodes.set(c.node, [...(nodes.get(c.node) ?? []), c.cpu]);
  return {
    cpus,
    logicalCpus: cpus.length,
    sockets: new Set(cpus.map((c) => c.socket)).size,
    cores,
    threadsPerCore: cores > 0 ? Math.round(cpus.length / cores) : 1,
    ...(smtControl !== undefined ? { smtControl } : {}),
    numaNodes: hasNodes
      ? [...nodes.entries()].sort((a, b) => a[0] - b[0]).map(([node, list]) => ({ node, cpus: list }))
      : [{ node: 0, cpus: cpus.map((c) => c.cpu) }],
    l3Groups: groups((c) => (c.l3 ? formatCpuList(c.l3) : undefined)).sort((a, b) => a[0]! - b[0]!),
  };
}

/** One line: "2 sockets, 2 NUMA nodes, 16 cores, 32 CPUs (SMT 2), 2 L3 groups". */
export function describeTopology(t: Topology): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const smt = t.threadsPerCore > 1 ? ` (SMT ${t.threadsPerCore})` : ' (no SMT)';
  return (
    `${plural(t.sockets, 'socket')}, ${plural(t.numaNodes.length, 'NUMA node')}, ${plural(t.cores, 'core')}, ` +
    `${plural(t.logicalCpus, 'CPU')}${smt}, ${plural(t.l3Groups.length, 'L3 group')}`
  );
}
