/**
 * Pinning: which CPUs run the server and which run the clients, and the command prefix that puts a
 * process there. The postmaster inherits its CPU set from pg_ctl's child, backends from the
 * postmaster, pgbench threads from pgbench; so prefixing `pg_ctl start` and the client command is
 * enough. Keeping the two apart stops the scheduler from moving client/backend pairs between runs,
 * one cause of the many-core throughput dip (benchmarking notes, sections 1.1 and 7.3).
 *
 * `planCpus` is pure: topology and the tools found in, a validated plan or a UserError out.
 */
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { formatCpuList, parseCpuList } from './sysfs.js';
import { readTopology, type LogicalCpu, type Topology } from './topology.js';
import { UserError, errorMessage } from '../core/util/errors.js';
import type { ProcessRunner } from './os/process.js';

/** The workload's `cpus` field: explicit kernel CPU lists, or 'auto'. */
export type CpusSpec = 'auto' | { server: string; client: string };

/** Absolute paths of the pinning tools found on the PATH. */
export interface PinningTools {
  taskset?: string;
  numactl?: string;
}

export interface CpuPlan {
  server: number[];
  client: number[];
  /** NUMA nodes of each side's CPUs. */
  serverNodes: number[];
  clientNodes: number[];
  /** Command prefixes, e.g. ["/usr/bin/taskset", "-c", "0-3"]. */
  serverPrefix: string[];
  clientPrefix: string[];
  tool: 'taskset' | 'numactl';
  /** Things that work but are not recommended (SMT siblings on both sides, a side spanning nodes). */
  warnings: string[];
}

/**
 * The plan for a `cpus` spec on a machine. `where` names the spec in messages (e.g. "workload
 * select-only: cpus"). Throws a UserError for CPUs that do not exist, overlapping sides, too few
 * cores for 'auto', or no taskset.
 */
export function planCpus(spec: CpusSpec, topology: Topology, tools: PinningTools, where = 'cpus'): CpuPlan {
  if (!tools.taskset && !tools.numactl) {
    throw new UserError(
      `${where}: pinning needs taskset (util-linux) or numactl, and neither is on the PATH: install util-linux (apt-get install util-linux) or remove "cpus"`,
    );
  }
  const { server, client } = spec === 'auto' ? autoSplit(topology, where) : explicit(spec, topology, where);
  const nodeOf = new Map(topology.cpus.map((c) => [c.cpu, c.node]));
  const nodes = (cpus: number[]) => [...new Set(cpus.map((c) => nodeOf.get(c) ?? 0))].sort((a, b) => a - b);
  const serverNodes = nodes(server);
  const clientNodes = nodes(client);
  const warnings: string[] = [];
  const byCpu = new Map(topology.cpus.map((c) => [c.cpu, c]));
  const clientSet = new Set(client);
  const split = server.filter((cpu) => byCpu.get(cpu)?.siblings.some((s) => s !== cpu && clientSet.has(s)));
  if (split.length > 0) {
    warnings.push(
      `${where}: server CPUs ${formatCpuList(split)} share cores (SMT siblings) with client CPUs; keep siblings on one side`,
    );
  }
  if (topology.numaNodes.length > 1 && serverNodes.length > 1) {
    warnings.push(
      `${where}: the server spans NUMA nodes ${serverNodes.join(',')}; memory is bound to all of them`,
    );
  }
  const useNumactl = tools.numactl !== undefined;
  const prefix = (cpus: number[], memNodes: number[] | undefined): string[] =>
    useNumactl
      ? [
          tools.numactl!,
          `--physcpubind=${formatCpuList(cpus)}`,
          ...(memNodes ? [`--membind=${memNodes.join(',')}`] : []),
        ]
      : [tools.taskset!, '-c', formatCpuList(cpus)];
  return {
    server,
    client,
    serverNodes,
    clientNodes,
    // Server memory (shared_buffers) on the server's nodes; clients allocate little, locally by default.
    serverPrefix: prefix(server, serverNodes),
    clientPrefix: prefix(client, undefined),
    tool: useNumactl ? 'numactl' : 'taskset',
    warnings,
  };
}

function explicit(
  spec: { server: string; client: string },
  topology: Topology,
  where: string,
): { server: number[]; client: number[] } {
  const online = new Set(topology.cpus.map((c) => c.cpu));
  const side = (name: 'server' | 'client') => {
    let cpus: number[];
    try {
      cpus = parseCpuList(String(spec[name]), `${where}.${name}`);
    } catch (e) {
      throw new UserError(errorMessage(e));
    }
    if (cpus.length === 0) throw new UserError(`${where}.${name}: expected a CPU list like 0-3, got ""`);
    const missing = cpus.filter((c) => !online.has(c));
    if (missing.length > 0) {
      throw new UserError(
        `${where}.${name}: CPU${missing.length === 1 ? '' : 's'} ${formatCpuList(missing)} of "${spec[name]}" ` +
          `${missing.length === 1 ? 'does' : 'do'} not exist on this machine (online CPUs: ${formatCpuList([...online])})`,
      );
    }
    return cpus;
  };
  const server = side('server');
  const client = side('client');
  const overlap = server.filter((c) => client.includes(c));
  if (overlap.length > 0) {
    throw new UserError(
      `${where}: server "${spec.server}" and client "${spec.client}" overlap on CPU${overlap.length === 1 ? '' : 's'} ${formatCpuList(overlap)}; give each side its own CPUs`,
    );
  }
  return { server, client };
}

/**
 * Splits whole cores (SMT siblings together): with several NUMA nodes the server takes the first half
 * of the nodes and the clients the rest; on one node the cores are split in order of L3 group, so each
 * side keeps whole CCXs where the counts allow. The server gets the larger half.
 */
export function autoSplit(topology: Topology, where = 'cpus'): { server: number[]; client: number[] } {
  const cores = coresInOrder(topology.cpus);
  if (cores.length < 2) {
    throw new UserError(
      `${where}: "auto" needs at least 2 cores to split between server and clients, this machine has ${cores.length}`,
    );
  }
  const nodes = topology.numaNodes.map((n) => n.node);
  let serverCores: number[][];
  let clientCores: number[][];
  if (nodes.length > 1) {
    const serverNodes = new Set(nodes.slice(0, Math.ceil(nodes.length / 2)));
    const nodeOf = new Map(topology.cpus.map((c) => [c.cpu, c.node]));
    serverCores = cores.filter((core) => serverNodes.has(nodeOf.get(core[0]!) ?? 0));
    clientCores = cores.filter((core) => !serverNodes.has(nodeOf.get(core[0]!) ?? 0));
  } else {
    const half = Math.ceil(cores.length / 2);
    serverCores = cores.slice(0, half);
    clientCores = cores.slice(half);
  }
  const flat = (list: number[][]) => list.flat().sort((a, b) => a - b);
  return { server: flat(serverCores), client: flat(clientCores) };
}

/** Cores (sibling groups of online CPUs), ordered by node, L3 group and first CPU. */
function coresInOrder(cpus: LogicalCpu[]): number[][] {
  const online = new Set(cpus.map((c) => c.cpu));
  const seen = new Set<string>();
  const cores: Array<{ key: [number, number, number]; cpus: number[] }> = [];
  for (const c of cpus) {
    const siblings = c.siblings.filter((s) => online.has(s));
    const id = formatCpuList(siblings);
    if (seen.has(id)) continue;
    seen.add(id);
    cores.push({ key: [c.node, Math.min(...(c.l3 ?? [c.cpu])), Math.min(...siblings)], cpus: siblings });
  }
  cores.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2]);
  return cores.map((c) => c.cpus);
}

/** The command and arguments to run `command args` under a prefix (or unchanged without one). */
export function withCpuPrefix(
  prefix: readonly string[] | undefined,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  if (!prefix || prefix.length === 0) return { command, args: [...args] };
  return { command: prefix[0]!, args: [...prefix.slice(1), command, ...args] };
}

/** Finds taskset and numactl on a PATH-style list of directories (pass process.env.PATH). */
export async function findPinningTools(searchPath: string): Promise<PinningTools> {
  const find = async (name: string) => {
    for (const dir of searchPath.split(path.delimiter)) {
      if (!dir) continue;
      try {
        await access(path.join(dir, name), constants.X_OK);
        return path.join(dir, name);
      } catch {
        // Not here.
      }
    }
    return undefined;
  };
  const [taskset, numactl] = await Promise.all([find('taskset'), find('numactl')]);
  return { ...(taskset ? { taskset } : {}), ...(numactl ? { numactl } : {}) };
}

/** A process runner that starts every command under `prefix` (the client side of a CPU plan). */
export function pinnedRunner(runner: ProcessRunner, prefix: readonly string[]): ProcessRunner {
  return {
    run(command, args, options) {
      const pinned = withCpuPrefix(prefix, command, args);
      return runner.run(pinned.command, pinned.args, options);
    },
  };
}

/** The CPU plan of every workload with `cpus`, checked before any server starts (errors name the workload). */
export async function workloadCpuPlans(
  workloads: ReadonlyArray<{ name: string; cpus?: CpusSpec }>,
  searchPath: string,
): Promise<Map<string, CpuPlan>> {
  const pinned = workloads.filter((w) => w.cpus !== undefined);
  const plans = new Map<string, CpuPlan>();
  if (pinned.length === 0) return plans;
  const [topology, tools] = await Promise.all([readTopology(), findPinningTools(searchPath)]);
  for (const w of pinned) plans.set(w.name, planCpus(w.cpus!, topology, tools, `workload ${w.name}: cpus`));
  return plans;
}
