/**
 * How often do the default memory floors (src/core/compare/evidence/memory-evidence.ts: backend memory 2 MiB
 * and 20 %, temp bytes/tx 8 kB and 10 %) flag a change on A/A pairs, the same install as base and head? Real
 * runs through the CLI: per seed, one `pgperf run` with two arms of one install, default flags otherwise (an
 * A/A pair of one install counts no instructions), short runs, on two cells:
 *
 * - select-only at 2 clients (the shipped workload: prepared point selects, no spill);
 * - a sort that spills, at 2 clients (pgbench_accounts of scale 1 ordered by a column with no index, work_mem
 *   1MB: 2.1 MB of temp files per transaction), written to a temp directory by this script.
 *
 * Printed per pair and cell: every memory metric's medians, the change and whether it moved beyond its
 * floors; then how many pair-cells any floor flagged, and the largest A/A movement per metric.
 *
 *   npx tsx bench/memory-aa.ts [--bin-dir /usr/lib/postgresql/15/bin] [--pairs 4] [--rounds 4] [--duration 2]
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { memoryLookup, type MemoryChange } from '../src/core/compare/evidence/memory-evidence.js';
import { formatBytes } from '../src/core/util/bytes.js';
import type { RunResult } from '../src/core/results/result-types.js';
import { isolatedEnv, onlyResultsFile, runCli } from '../test/helpers/cli.js';

const { values } = parseArgs({
  options: {
    'bin-dir': { type: 'string', default: '/usr/lib/postgresql/15/bin' },
    pairs: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '4' },
    duration: { type: 'string', default: '2' },
  },
});
const binDir = values['bin-dir'];
const pairs = Number(values.pairs);

const SPILL = `name: sort-spill
description: A sort of pgbench_accounts by a column with no index, beyond work_mem (memory-aa bench).
tool: pgbench
scripts:
  - file: sort-spill.sql
    weight: 1
queryMode: prepared
scale: 1
clients: [1]
settings:
  work_mem: 1MB
`;
const SPILL_SQL =
  'SELECT count(*) FROM (SELECT aid FROM pgbench_accounts ORDER BY abalance, bid DESC, aid OFFSET 0) s;\n';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-memory-aa-'));
const rows: Array<{ seed: number; cell: string; change: MemoryChange }> = [];
try {
  // The run-as user (pgperf as root runs PostgreSQL as another user) enters it for its clusters.
  await chmod(dir, 0o755);
  await writeFile(path.join(dir, 'sort-spill.yml'), SPILL);
  await writeFile(path.join(dir, 'sort-spill.sql'), SPILL_SQL);
  for (let seed = 1; seed <= pairs; seed++) {
    const out = path.join(dir, `out-${seed}`);
    const ran = await runCli(
      [
        'run',
        ...['--arm', `base=${binDir}`, '--arm', `aa=${binDir}`],
        ...['--workload', 'select-only', '--workload', path.join(dir, 'sort-spill.yml')],
        ...['--clients', '2', '--duration', values.duration, '--rounds', values.rounds],
        // Few rounds on purpose (memory needs 3 runs per arm): the TPS test's power is not the question.
        ...['--seed', String(seed), '--force', '--no-store', '--out', out, '--tmp-dir', dir],
      ],
      { source: true, cwd: dir, env: isolatedEnv(dir), killAfterMs: 900_000 },
    );
    if (ran.code !== 0 && ran.code !== 1)
      throw new Error(`seed ${seed}: exit ${ran.code}\n${ran.stderr.slice(-3000)}`);
    const result = JSON.parse(await readFile(await onlyResultsFile(out), 'utf8')) as RunResult;
    const lookup = memoryLookup(result);
    for (const [workload, clients] of [
      ['select-only', 2],
      ['sort-spill', 2],
    ] as const) {
      const judged = lookup('aa', { workload, clients });
      for (const change of judged?.changes ?? []) {
        rows.push({ seed, cell: `${workload}@${clients}`, change });
        console.log(`seed ${seed} ${workload}@${clients}: ${change.message}${change.moved ? '  MOVED' : ''}`);
      }
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const cells = new Set(rows.map((r) => `${r.seed} ${r.cell}`));
const flagged = new Set(rows.filter((r) => r.change.moved).map((r) => `${r.seed} ${r.cell}`));
console.log(
  `\n${binDir}: ${pairs} A/A pairs, ${cells.size} pair-cells; flagged by the default floors: ${flagged.size}`,
);
for (const metric of [...new Set(rows.map((r) => r.change.metric))]) {
  const of = rows.filter((r) => r.change.metric === metric);
  const bytes = of.reduce((a, r) => (Math.abs(r.change.deltaBytes) > Math.abs(a.change.deltaBytes) ? r : a));
  const pcts = of.map((r) => Math.abs(r.change.deltaPct ?? 0));
  console.log(
    `  ${metric}: largest |change| ${formatBytes(Math.abs(bytes.change.deltaBytes))} (${bytes.cell}, seed ${bytes.seed}), ` +
      `largest |%| ${Math.max(...pcts).toFixed(1)}%; moved in ${of.filter((r) => r.change.moved).length} of ${of.length}`,
  );
}
