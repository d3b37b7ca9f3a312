/**
 * Attribution speed (issue #43's goal): the test kit's 12-commit history on PostgreSQL 18.6
 * (testkit/pg-history.ts: docs and comment edits around four commits that move the instructions per
 * transaction) attributed as `pgperf attribute` does it, with a short select-only workload counted by
 * cachegrind. Prints the builds (and cache hits), the counted runs, the wall time and whether exactly the
 * four commits were named with their changes adding up to the end-to-end change within 1 pp.
 *
 *   npx tsx bench/attribution.ts [--cache-dir DIR] [--out DIR]
 *
 * --cache-dir: the build cache (default the test cache, testCacheDir(): warm on a machine that ran the
 * tests). Target on a 2-core machine with a warm build cache: within 20 minutes, building well under every
 * commit (fewer than 13 builds: the range and its `from` end). --out: default a new temp dir; an --out that
 * holds the journal of an earlier run resumes it (nothing counted again), so give a fresh one to measure.
 */
import { instructionWorkloadText } from '../testkit/instruction-workload.js';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseWorkload } from '../src/drivers/load-workload.js';
import { runAttribution } from '../src/flows/attribute/attribution-flow.js';
import { parseRepo } from '../src/postgres/builds/source.js';
import { consoleLogger } from '../src/core/util/logger.js';
import { nodeProcessRunner } from '../src/machine/os/process.js';
import { preparePgHistoryRepo } from '../testkit/pg-history.js';
import { testCacheDir } from '../testkit/pg-source.js';

const TARGET_S = 20 * 60;

const { values } = parseArgs({
  options: {
    'cache-dir': { type: 'string', default: testCacheDir() },
    out: { type: 'string' },
  },
});
const cacheDir = path.resolve(values['cache-dir']);
const logger = consoleLogger();

async function main(): Promise<void> {
  const history = await preparePgHistoryRepo({ dir: path.join(cacheDir, 'repos', 'pg18-history') });
  const out = values.out ?? (await mkdtemp(path.join(os.tmpdir(), 'pgperf-bench-attribution-')));
  const workload = parseWorkload(instructionWorkloadText(1, '{ repetitions: 3 }'), 'bench select-only');
  const t0 = Date.now();
  const report = await runAttribution(
    {
      repo: parseRepo(history.dir, process.cwd()),
      from: history.baseRef,
      to: history.headRef,
      cacheDir,
      extraOptions: [],
      workloads: [workload],
      maxCommits: 40,
      instructionCounter: { counter: 'cachegrind' },
      outDir: out,
    },
    { runner: nodeProcessRunner, logger },
  );
  const wallS = (Date.now() - t0) / 1000;
  const named = report.culprits.map((c) => c.sha);
  const expected = history.culprits.map((c) => c.sha);
  const exact = named.length === expected.length && named.every((s, i) => s === expected[i]);
  const w = report.workloads[0]!;
  const offPp = Math.abs(
    report.culprits.reduce((s, c) => s + (c.changes[0]?.sharePct ?? 0), 0) - (w.endsDiffer ? 100 : 0),
  );
  const { cost, budget } = report;
  const lines = [
    `attribution of ${report.commits} commits (${expected.length} cost-moving), cache ${cacheDir}:`,
    `  builds ${cost.builds} (${cost.cacheHits} cache hits) of ${report.commits + 1} commits; counted runs ${budget.counted}`,
    `  wall ${wallS.toFixed(0)} s (building ${cost.buildS} s, counting ${cost.countS} s); target ${TARGET_S} s`,
    `  named ${named.length}: ${exact ? 'exactly the four' : `WRONG (expected ${expected.map((s) => s.slice(0, 7)).join(' ')}, got ${named.map((s) => s.slice(0, 7)).join(' ')})`}; shares add up to within ${offPp.toFixed(2)} pp of 100 %`,
    `  attribution.json: ${path.join(out, 'attribution.json')}`,
  ];
  console.log(lines.join('\n'));
  const ok = exact && offPp <= 1 && wallS <= TARGET_S && cost.builds < report.commits + 1;
  process.exitCode = ok ? 0 : 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
