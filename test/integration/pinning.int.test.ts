/**
 * Pinning on a real server and pgbench: the server started under the plan's prefix (CPU 0), pgbench
 * under the client's (CPU 1), checked with `taskset -p` on the running postmaster, its children, the
 * pgbench process and the backends serving it.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import type { PgbenchWorkload } from '../../src/drivers/workload.js';
import { initArgs, measureArgs } from '../../src/drivers/pgbench/pgbench-command.js';
import { readTopology } from '../../src/machine/topology.js';
import { findPinningTools, planCpus, withCpuPrefix } from '../../src/machine/pinning.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installedBinDir } from '../../testkit/postgres.js';
import { useTestClusters } from '../helpers/clusters.js';
import { sameInstallRequest } from '../helpers/run-request.js';

const binDir = installedBinDir();
const clusters = useTestClusters('pgperf-it-pinning-');

/** The affinity mask `taskset -p` reports for a pid, e.g. "1" for CPU 0; null when the process is gone. */
async function affinityMask(pid: number): Promise<string | null> {
  const res = await nodeProcessRunner.run('taskset', ['-p', String(pid)]);
  const mask = /current affinity mask: ([0-9a-f]+)/.exec(res.stdout)?.[1];
  if (!mask && /No such process/.test(res.stderr)) return null;
  if (!mask) throw new Error(`taskset -p ${pid}: ${res.stdout}${res.stderr}`);
  return mask;
}

async function childrenOf(ppid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) pids.push(Number(entry));
    } catch {
      // Gone.
    }
  }
  return pids;
}

describe('pinning (real PostgreSQL and pgbench)', () => {
  it.runIf(os.cpus().length >= 2)(
    'server on CPU 0 and pgbench on CPU 1, as taskset -p shows on the running processes',
    async () => {
      const plan = planCpus(
        { server: '0', client: '1' },
        await readTopology(),
        await findPinningTools(process.env.PATH ?? ''),
      );
      const conf = { maxClients: 10, workloadSettings: {} };
      const cluster = await clusters.create('pinned', binDir, conf, { cpuPrefix: plan.serverPrefix });
      try {
        await cluster.start();
        const postmaster = (await cluster.postmasterPid())!;
        expect(await affinityMask(postmaster)).toBe('1');
        const auxiliaries = await childrenOf(postmaster);
        expect(auxiliaries.length).toBeGreaterThan(0);
        // An auxiliary process may end between listing and asking (the startup process): skip those.
        for (const pid of auxiliaries) {
          const mask = await affinityMask(pid);
          if (mask !== null) expect(mask).toBe('1');
        }

        const workload = parseWorkload(
          'name: pin\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [2]\n',
          'pin.yml',
        ) as PgbenchWorkload;
        const pgbench = path.join(binDir, 'pgbench');
        const init = await nodeProcessRunner.run(pgbench, initArgs(workload, cluster.connection));
        expect(init.exitCode, init.stderr).toBe(0);

        const args = measureArgs({
          workload,
          connection: cluster.connection,
          clients: 2,
          durationS: 6,
          seed: 1,
          cpuCount: os.cpus().length,
          clientCpus: plan.client.length,
        });
        expect(args[args.indexOf('-j') + 1]).toBe('1'); // -j follows the one client CPU
        const { command, args: full } = withCpuPrefix(plan.clientPrefix, pgbench, args);
        const child = spawn(command, full, {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, PGAPPNAME: 'pinned-pgbench' },
        });
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        try {
          // taskset execs pgbench in place: the child's pid is pgbench once it connects.
          let backends: number[] = [];
          for (let i = 0; i < 50 && backends.length < 2; i++) {
            await new Promise((r) => setTimeout(r, 100));
            backends = (
              await cluster.psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'pinned-pgbench'")
            )
              .split('\n')
              .filter(Boolean)
              .map(Number);
          }
          expect(backends).toHaveLength(2);
          expect((await readFile(`/proc/${child.pid}/comm`, 'utf8')).trim()).toBe('pgbench');
          expect(await affinityMask(child.pid!)).toBe('2');
          for (const pid of backends) expect(await affinityMask(pid)).toBe('1');
        } finally {
          expect(await exited).toBe(0);
        }
      } finally {
        await cluster.destroy();
      }
    },
  );
});

describe('pinning through the run loop', () => {
  it('runs a workload with cpus pinned, records the plan, and -j follows the client CPUs', async () => {
    const { runBenchmark } = await import('../../src/run/run-loop.js');
    const dir = path.join(clusters.dir(), 'pinned-run');
    await mkdir(dir, { mode: 0o755 });
    const workload = parseWorkload(
      'name: pinned\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [2]\nduration: 1\nwarmup: 0\nrounds: 2\ncpus: { server: "0", client: "1" }\n',
      'pinned.yml',
    );
    const request = sameInstallRequest(binDir, dir, [workload], {
      seed: 5,
      diagnostics: false,
      preflightWindowS: 0,
    });
    const result = await runBenchmark(request, {
      runner: nodeProcessRunner,
      logger: memoryLogger(),
      searchPath: process.env.PATH ?? '',
    });
    expect(result.status).toBe('complete');
    expect(result.pinning?.pinned).toMatchObject({ server: [0], client: [1] });
    for (const s of result.samples) {
      expect(s.status).toBe('ok');
      expect(s.command.join(' ')).toMatch(/ -j 1( |$)/);
    }
  }, 180_000);
});
