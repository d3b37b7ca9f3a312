/**
 * Change-point detection and the history page: speed, and a seeded simulation of what the detector finds.
 *
 * Run: npx tsx bench/changepoints.ts [--no-browser]
 *
 * 1. Speed of detectChangePoints on one series of 1,000 and 5,000 points (ln TPS, CV 1%, two steps).
 * 2. The budget: 1,000 series × 365 points analysed in under 2 s.
 * 3. Seeded simulation (xoshiro128**, normal noise CV 1% on ln TPS): the share of flat series flagged
 *    (false positives) by length, and for planted steps of 1–5 noise standard deviations the share found
 *    within one point of where they were planted, at the default p < 0.001 and at p < 0.0001.
 * 4. The history page with 50,000 points (5 client counts × 10,000 runs) opened in headless Chromium:
 *    time from navigation start to the chart drawn (budget 1 s), as the page itself records it.
 *
 * Figures depend on the machine and its load; they are reported, never asserted by tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseHistory } from '../src/history/analyse.js';
import { historySiteData } from '../src/history/page-data.js';
import { renderHistorySite } from '../src/history/page-html.js';
import type { HistoryRun } from '../src/history/series.js';
import { loadChartAssets } from '../src/history/uplot-assets.js';
import { writeSite } from '../src/history/write-site.js';
import { RESULTS_SCHEMA_VERSION } from '../src/results/types.js';
import { detectChangePoints, type ChangePointOptions } from '../src/stats/e-divisive.js';
import { normalQuantile } from '../src/stats/normal-quantile.js';
import { seededRandom } from '../src/stats/seeded-random.js';

const CV = 0.01;
const log: ChangePointOptions = { scale: 'log' };

function series(seed: number, n: number, steps: Array<[number, number]>): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    let level = Math.log(50000);
    for (const [at, pct] of steps) if (i >= at) level += Math.log1p(pct / 100);
    return level + CV * normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));
  });
}

function timeMs(f: () => void, repeats: number): number {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(repeats / 2)]!;
}

// 1. One long series.
for (const n of [1000, 5000]) {
  const values = series(1, n, [
    [Math.floor(n * 0.3), -4],
    [Math.floor(n * 0.7), 3],
  ]);
  let found = 0;
  const ms = timeMs(() => (found = detectChangePoints(values, log).length), 5);
  console.log(
    `detectChangePoints, ${n} points: median of 5 runs ${ms.toFixed(1)} ms (${found} change points)`,
  );
}

// 2. 1,000 series × 365 points.
{
  const all = Array.from({ length: 1000 }, (_, i) => series(100 + i, 365, i % 10 === 0 ? [[300, -5]] : []));
  const start = performance.now();
  let total = 0;
  for (const s of all) total += detectChangePoints(s, log).length;
  const ms = performance.now() - start;
  console.log(
    `1,000 series x 365 points: ${ms.toFixed(0)} ms (budget 2000 ms; ${total} change points, 100 series with a planted -5% step)`,
  );
}

// 3. Seeded simulation.
for (const maxP of [0.001, 0.0001]) {
  const o: ChangePointOptions = { ...log, maxP };
  const flat = [40, 100, 365].map((n) => {
    let flagged = 0;
    for (let seed = 1; seed <= 200; seed++)
      if (detectChangePoints(series(seed, n, []), o).length > 0) flagged++;
    return `n=${n}: ${((100 * flagged) / 200).toFixed(1)}%`;
  });
  console.log(`p < ${maxP}: flat series flagged (200 each, CV 1%): ${flat.join(', ')}`);
  const power = [1, 2, 3, 5].map((sd) => {
    let hit = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const found = detectChangePoints(series(seed, 100, [[60, -sd * CV * 100]]), o);
      if (found.some((c) => Math.abs(c.index - 60) <= 1)) hit++;
    }
    return `${sd} sd: ${((100 * hit) / 200).toFixed(1)}%`;
  });
  console.log(`p < ${maxP}: step at 60 of 100 found within one point (200 each): ${power.join(', ')}`);
}

// 4. The page with 50,000 points.
if (!process.argv.includes('--no-browser')) {
  const runs: HistoryRun[] = [];
  const random = seededRandom(7);
  const clients = [1, 2, 4, 8, 16];
  for (let night = 0; night < 10000; night++) {
    const startedAt = new Date(Date.UTC(2000, 0, 1 + night, 2)).toISOString();
    runs.push({
      schemaVersion: RESULTS_SCHEMA_VERSION,
      pgperfVersion: 'bench',
      runId: `n${night}`,
      fingerprint: { id: 'bench', facts: {} },
      status: 'complete',
      startedAt,
      updatedAt: startedAt,
      environment: {
        hostname: 'bench',
        os: '',
        kernel: '',
        arch: '',
        cpuModel: '',
        cpuCount: 1,
        memoryBytes: 0,
        facts: {},
        nodeVersion: '',
        settingsHash: '',
      },
      arms: [{ label: 'head', binDir: '', serverVersion: '', settingOverrides: {} }],
      clients: [],
      workloads: {},
      plan: { seed: 0, order: 'random', rounds: 1, cells: [], executed: [] },
      source: { head: { sha: night.toString(16).padStart(40, '0') } },
      samples: clients.map((c) => ({
        round: 1,
        workload: 'tpcb-like',
        clients: c,
        arm: 'head',
        attempt: 1,
        status: 'ok' as const,
        startedAt,
        endedAt: startedAt,
        randomSeed: 1,
        metrics: { tps: 1000 * c * (night >= 7000 ? 0.95 : 1) * (1 + 0.02 * (random() - 0.5)) },
        counts: {},
        progress: [],
        command: [],
        exitCode: 0,
      })),
      warnings: [],
    });
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgperf-bench-history-'));
  try {
    const start = performance.now();
    const analysis = analyseHistory(runs);
    const analysed = performance.now();
    const files = renderHistorySite(historySiteData(analysis), await loadChartAssets());
    await writeSite(dir, files);
    const rendered = performance.now();
    const page = path.join(dir, files[1]!.file);
    console.log(
      `history of 50,000 points: analysis ${(analysed - start).toFixed(0)} ms, HTML ${(rendered - analysed).toFixed(0)} ms, page ${(readFileSync(page).length / 1e6).toFixed(1)} MB`,
    );
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const profile = mkdtempSync(path.join(dir, 'profile-'));
      const r = spawnSync(
        'chromium',
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          `--user-data-dir=${profile}`,
          '--window-size=1280,900',
          '--dump-dom',
          `file://${page}`,
        ],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      const at = /data-drawn-at-ms="(\d+)"/.exec(r.stdout ?? '');
      if (!at) {
        console.log(`chromium did not draw the chart (exit ${r.status}): ${(r.stderr ?? '').slice(-300)}`);
        break;
      }
      times.push(Number(at[1]));
    }
    if (times.length > 0) {
      console.log(
        `history page, 50,000 points in headless Chromium: navigation start to chart drawn ${times.join(', ')} ms (budget 1000 ms)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
