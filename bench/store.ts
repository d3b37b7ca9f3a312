/**
 * Results store speed, with each backend: saving one run of 64 cells x 30 rounds x 2 arms (3,840
 * samples), and listing 1,000 stored runs. Target for both: < 200 ms on a 2-core machine.
 *
 *   npx tsx bench/store.ts [--pg-url postgresql://...] [--runs 1000] [--progress 60]
 *
 * The big run is made of the real samples captured in test/fixtures/results/ (each of the 3,840 samples
 * is a captured sample of the same arm, cycled, with its workload, clients and round rewritten), so
 * the per-sample size is real; those runs were 2 s long and hold 1 progress point each. --progress N
 * gives every sample N per-second progress points (a 60 s run has 60) for the size of a real nightly run.
 * Without --pg-url a private PostgreSQL server is started (as the tests do) and stopped at the end.
 * The 1,000 listed runs are copies of the fixture run (54 samples) with distinct start times.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RunResult, Sample } from '../src/core/results/result-types.js';
import { DirStore } from '../src/store/dir/dir-store.js';
import { PgStore } from '../src/store/postgres/pg-store.js';
import type { ResultStore } from '../src/store/store.js';
import { fixtureVariant, minutesAfter, readFixture } from '../testkit/store-fixture.js';
import { startTestPgServer, type TestPgServer } from '../testkit/pg-server.js';

const TARGET_MS = 200;
const WORKLOADS = 8;
const CLIENTS = [1, 2, 4, 8, 16, 32, 64, 128];
const ROUNDS = 30;
const REPEATS = 7;

const { values } = parseArgs({
  options: {
    'pg-url': { type: 'string' },
    runs: { type: 'string', default: '1000' },
    progress: { type: 'string', default: '1' },
  },
});
const listedRuns = Number(values.runs);
const progressPoints = Number(values.progress);

/** 64 cells x 30 rounds x 2 arms from the captured samples. */
function bigRun(fixture: RunResult): RunResult {
  const run = structuredClone(fixture);
  const template = fixture.workloads['select-only']!;
  const byArm = new Map<string, Sample[]>();
  for (const s of fixture.samples) byArm.set(s.arm, [...(byArm.get(s.arm) ?? []), s]);
  run.workloads = {};
  run.plan.cells = [];
  run.samples = [];
  run.plan.rounds = ROUNDS;
  let k = 0;
  for (let w = 1; w <= WORKLOADS; w++) {
    const name = `workload-${w}`;
    run.workloads[name] = { ...(template as object), name, clients: CLIENTS, rounds: ROUNDS };
    for (const clients of CLIENTS) run.plan.cells.push({ workload: name, clients });
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const cell of run.plan.cells) {
      for (const arm of ['base', 'head']) {
        const pool = byArm.get(arm)!;
        const s = structuredClone(pool[k++ % pool.length]!);
        const point = s.progress[0] ?? { t: 1, tps: s.metrics.tps ?? 0 };
        s.progress = Array.from({ length: progressPoints }, (_, i) => ({ ...point, t: i + 1 }));
        run.samples.push({ ...s, workload: cell.workload, clients: cell.clients, round, arm });
      }
    }
  }
  run.startedAt = minutesAfter(-1);
  return run;
}

async function time<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(name: string, store: ResultStore, fixture: RunResult, big: RunResult) {
  const saves: number[] = [];
  for (let i = 0; i < REPEATS; i++) saves.push(await time(() => store.save(big)));
  process.stderr.write(`${name}: storing ${listedRuns} runs to list...\n`);
  for (let i = 0; i < listedRuns; i++)
    await store.save(fixtureVariant(fixture, { startedAt: minutesAfter(i) }));
  const lists: number[] = [];
  let count = 0;
  for (let i = 0; i < REPEATS; i++) {
    lists.push(
      await time(async () => {
        count = (await store.list()).length;
      }),
    );
  }
  const filteredTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    filteredTimes.push(await time(() => store.list({ workload: 'smoke', since: minutesAfter(500) })));
  }
  const filtered = median(filteredTimes);
  const loads: number[] = [];
  for (let i = 0; i < 3; i++) loads.push(await time(() => store.load(big.runId!)));
  return { name, saves, lists, count, filtered, loads };
}

const fixture = readFixture();
const big = { ...bigRun(fixture), runId: 'bench-big-run' };
const bytes = JSON.stringify(big).length;
console.log(
  `run: ${big.plan.cells.length} cells x ${ROUNDS} rounds x 2 arms = ${big.samples.length} samples, ` +
    `${progressPoints} progress point(s) per sample, ${(bytes / 1024 ** 2).toFixed(1)} MiB of JSON`,
);

const results = [];
const tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-bench-store-'));
let server: TestPgServer | undefined;
try {
  const dir = await DirStore.open(path.join(tmp, 'store'), { warn: console.warn, write: true });
  results.push(await measure('directory', dir, fixture, big));
  let url = values['pg-url'];
  if (!url) {
    server = await startTestPgServer('bench-store');
    await server.admin(`CREATE DATABASE bench`);
    url = `postgresql://postgres@/bench?host=${encodeURIComponent(server.socketDir)}&port=${server.port}`;
  }
  const pg = await PgStore.connect(url, { warn: console.warn });
  try {
    results.push(await measure('postgresql', pg, fixture, big));
  } finally {
    await pg.close();
  }
} finally {
  await server?.stop();
  await rm(tmp, { recursive: true, force: true });
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const verdict = (x: number) => (x < TARGET_MS ? 'ok' : `OVER the ${TARGET_MS} ms target`);
for (const r of results) {
  console.log(`\n${r.name}`);
  console.log(
    `  save 3,840 samples: median ${ms(median(r.saves))} (first ${ms(r.saves[0]!)}, min ${ms(Math.min(...r.saves))}, max ${ms(Math.max(...r.saves))}) ${verdict(median(r.saves))}`,
  );
  console.log(
    `  list ${r.count} runs: median ${ms(median(r.lists))} (first ${ms(r.lists[0]!)}, max ${ms(Math.max(...r.lists))}) ${verdict(median(r.lists))}`,
  );
  console.log(`  list with filters (workload, since): median ${ms(r.filtered)}`);
  console.log(`  load the 3,840-sample run: median ${ms(median(r.loads))}`);
}
