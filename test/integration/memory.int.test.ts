/**
 * Memory through a real run of the installed PostgreSQL: one run, three arms of one install (base, an A/A
 * copy of base, and a head with work_mem=64kB), a sort-heavy custom script, 3 rounds of 1 s at 1 client.
 * Every sample records its backends' private memory (smaps_rollup Anonymous) and temp bytes per
 * transaction; the head's sorts spill, so its temp bytes/tx rise and it fails on them by default, while the
 * A/A arm shows no memory change.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { memoryLookup } from '../../src/core/compare/evidence/memory-evidence.js';
import { steadySummary } from '../../src/core/compare/evidence/steady-summary.js';
import { steadyCellLine } from '../../src/core/report/terminal/comparison-text.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { runBenchmark } from '../../src/run/run-loop.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { useTestClusters } from '../helpers/clusters.js';
import { sameInstallRequest } from '../helpers/run-request.js';
import { installedBinDir } from '../../testkit/postgres.js';

const binDir = installedBinDir();
const clusters = useTestClusters('pgperf-it-memory-');
const tmp = clusters.dir;

describe('memory in a real run', () => {
  it('a head with work_mem=64kB spills: temp bytes/tx rise and fail it; A/A shows no memory change', async () => {
    // 5,000 rows of about 100 bytes sorted: about 600 kB, in memory at the default 4MB, spilled at 64kB.
    await writeFile(
      path.join(tmp(), 'sort.sql'),
      'SELECT count(*) FROM (SELECT aid FROM pgbench_accounts WHERE aid <= 5000 ORDER BY filler, abalance DESC) s;\n',
    );
    const workload = parseWorkload(
      `name: sorts\ntool: pgbench\nscripts:\n  - file: ${path.join(tmp(), 'sort.sql')}\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 3\n`,
      path.join(tmp(), 'sorts.yml'),
    );
    const request = sameInstallRequest(binDir, tmp(), [workload], { seed: 5, preflightWindowS: 0 });
    const logger = memoryLogger();
    const result = await runBenchmark(
      {
        ...request,
        arms: [
          { label: 'base', binDir, settings: {} },
          { label: 'aa', binDir, settings: {} },
          { label: 'head', binDir, settings: { work_mem: '64kB' } },
        ],
      },
      { runner: nodeProcessRunner, logger },
    );
    expect(result.status).toBe('complete');
    expect(result.samples).toHaveLength(9);
    for (const s of result.samples) {
      expect(s.status).toBe('ok');
      // Read as root (or as the server's own user): recorded in every run.
      expect(s.memory, JSON.stringify(s.memory)).toMatchObject({ field: 'Anonymous', backends: 1 });
      expect(s.memory!.notRecorded).toBeUndefined();
      expect(s.metrics.backendMemoryPeakBytes).toBeGreaterThan(512 * 1024);
      expect(s.metrics.backendMemoryPeakBytes).toBeLessThan(256 * 1024 * 1024);
      if (s.arm === 'head') expect(s.metrics.tempBytesPerTx).toBeGreaterThan(100_000);
      else expect(s.metrics.tempBytesPerTx).toBe(0);
    }
    const cell = { workload: 'sorts', clients: 1 };
    const lookup = memoryLookup(result);
    const aa = lookup('aa', cell)!;
    const head = lookup('head', cell)!;
    console.log(`A/A: ${aa.changes.map((c) => c.message).join('; ')}`);
    console.log(`work_mem=64kB: ${head.changes.map((c) => c.message).join('; ')}`);
    expect(aa.moved).toBe(false);
    expect(head.changes.find((c) => c.metric === 'tempBytesPerTx')!.moved).toBe(true);

    const comparison = analyse(result);
    const byHead = new Map(comparison.comparisons.map((a) => [a.head, a]));
    expect(byHead.get('aa')!.otherMetricCells).toEqual([]);
    expect(byHead.get('head')!.otherMetricCells.map((c) => [c.metric, c.verdict])).toContainEqual([
      'tempBytesPerTx',
      'regression',
    ]);
    const decision = decideRun(result, comparison);
    console.log(decision.headline);
    expect(decision.outcome).toBe('failed');
    expect(decision.headline.detail).toMatch(
      /^head: sorts at 1 client, temp bytes\/tx 0 B -> \d+ kB \(\+\d+ kB; medians of 3 and 3 runs\)$/,
    );
    expect(decision.cells.filter((c) => c.head === 'aa' && c.verdict === 'regression')).toEqual([]);
    const lines = steadySummary(result).map((c) => `${c.head} ${c.cell}: ${steadyCellLine(c)}`);
    console.log(lines.join('\n'));
    expect(lines.find((l) => l.startsWith('head '))).toMatch(/temp bytes\/tx 0 -> [\d,]+/);
  }, 600_000);
});
