/**
 * Change-point detection and the history page: speed, calibration, and a seeded simulation of what the
 * detector finds.
 *
 * Run: npx tsx bench/changepoints.ts [--no-browser]
 *
 * 1. Speed of detectChangePoints on one series of 1,000, 5,000 and 100,000 points (ln TPS, CV 1%, two steps).
 * 2. The budget: 1,000 series × 365 points analysed in under 2 s, by E-Divisive alone and by the
 *    events stage that pgperf history runs (seriesEvents).
 * 3. False positives on pure noise (issue 22): 5 seeded series of 10⁵ points each of Gaussian, Student-t₃
 *    (heavy tails) and Cauchy (extreme tails) noise, at the default p < 0.001, against the stated rate
 *    (STATED_FALSE_CHANGE_POINTS_PER_POINT); and the calibration of the split correction itself
 *    (splitScanP): how often the best split of a segment of Gaussian noise gets a corrected p below 5%
 *    and 1%.
 * 4. Scale: the same step (1 → 2, noise 5%) at 1, 1e200, 1e-200, 8e307 and 1e-310 must give the same index,
 *    p and relative change, and means in the data's units.
 * 5. Seeded simulation (xoshiro128**, normal noise CV 1% on ln TPS): the share of flat series flagged
 *    (false positives) by length, and for planted steps of 1–5 noise standard deviations the share found
 *    within one point of where they were planted: in the middle of 100 points, 65 points before the end of
 *    365, and with only 3 points after it, at the default p < 0.001 and at p < 0.0001.
 * 6. The history page with 50,000 points (5 client counts × 10,000 runs) opened in headless Chromium:
 *    time from navigation start to the chart drawn (budget 1 s), as the page itself records it.
 *
 * Figures depend on the machine and its load; they are reported, never asserted by tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseHistory } from '../src/core/history/history-analysis.js';
import { historySiteData } from '../src/core/report/history/page-data.js';
import { renderHistorySite } from '../src/core/report/history/page-html.js';
import type { HistoryRun } from '../src/core/history/series.js';
import { loadChartAssets } from '../src/flows/history/uplot-assets.js';
import { writeSite } from '../src/flows/history/write-site.js';
import { RESULTS_SCHEMA_VERSION } from '../src/core/results/result-types.js';
import {
  detectChangePoints,
  STATED_FALSE_CHANGE_POINTS_PER_POINT,
  type ChangePointOptions,
} from '../src/core/stats/e-divisive.js';
import { seriesEvents } from '../src/core/history/series-events.js';
import { normalQuantile } from '../src/core/stats/normal-quantile.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { splitScanP } from '../src/core/stats/split-scan-p.js';
import { studentTCdf } from '../src/core/stats/student-t-cdf.js';

const CV = 0.01;
const log: ChangePointOptions = { scale: 'log' };

/** A standard normal draw. */
function gaussian(random: () => number): number {
  return normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));
}

function series(seed: number, n: number, steps: Array<[number, number]>): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => {
    let level = Math.log(50000);
    for (const [at, pct] of steps) if (i >= at) level += Math.log1p(pct / 100);
    return level + CV * gaussian(random);
  });
}

/** Noise generators for the false-positive runs: each draw is one point. */
const NOISE: Record<string, (random: () => number) => number> = {
  Gaussian: gaussian,
  // Student's t with 3 degrees of freedom: Z/√(χ²₃/3); finite variance, heavy tails (kurtosis ∞).
  'Student-t3': (random) => {
    const z = gaussian(random);
    let chi2 = 0;
    for (let i = 0; i < 3; i++) chi2 += gaussian(random) ** 2;
    return z / Math.sqrt(chi2 / 3);
  },
  // Cauchy (t₁): no mean, no variance; a t-test alone is fooled by its outliers.
  Cauchy: (random) => Math.tan(Math.PI * (random() - 0.5)),
};

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
for (const n of [1000, 5000, 100_000]) {
  const values = series(1, n, [
    [Math.floor(n * 0.3), -4],
    [Math.floor(n * 0.7), 3],
  ]);
  let found = 0;
  const repeats = n > 10_000 ? 3 : 5;
  const ms = timeMs(() => (found = detectChangePoints(values, log).length), repeats);
  console.log(
    `detectChangePoints, ${n} points: median of ${repeats} runs ${ms.toFixed(1)} ms (${found} change points, 2 planted)`,
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
  // What pgperf history runs on each series: the events stage around the segmentation (series-events.ts).
  const t0 = performance.now();
  let events = 0;
  for (const s of all) events += seriesEvents(s, log).events.length;
  const eventsMs = performance.now() - t0;
  console.log(
    `1,000 series x 365 points, events (seriesEvents): ${eventsMs.toFixed(0)} ms (budget 2000 ms; ${events} events)`,
  );
}

// 3. False positives on pure noise, and the calibration of the split correction.
{
  const SERIES = 5;
  const N = 100_000;
  for (const [name, draw] of Object.entries(NOISE)) {
    let falsePoints = 0;
    const times: number[] = [];
    for (let seed = 1; seed <= SERIES; seed++) {
      const random = seededRandom(1000 + seed);
      const values = Array.from({ length: N }, () => draw(random));
      const start = performance.now();
      falsePoints += detectChangePoints(values).length;
      times.push(performance.now() - start);
    }
    const points = SERIES * N;
    console.log(
      `pure ${name} noise, ${SERIES} x ${N} points, p < 0.001: ${falsePoints} false change points = ${((1e4 * falsePoints) / points).toFixed(2)} per 10^4 points (stated: <= ${1e4 * STATED_FALSE_CHANGE_POINTS_PER_POINT}); ${(times.reduce((a, b) => a + b, 0) / SERIES).toFixed(0)} ms per series`,
    );
  }
  for (const [length, reps] of [
    [20, 20_000],
    [100, 20_000],
    [1000, 4000],
  ] as const) {
    const random = seededRandom(length);
    let below5 = 0;
    let below1 = 0;
    let bonferroni5 = 0;
    for (let r = 0; r < reps; r++) {
      const x = Array.from({ length }, () => gaussian(random));
      const p = Math.min(1, 2 * studentTCdf(-maxAbsT(x, 3), length - 2));
      const adjusted = splitScanP(p, length, 3);
      if (adjusted < 0.05) below5++;
      if (adjusted < 0.01) below1++;
      if (p * (length - 5) < 0.05) bonferroni5++;
    }
    console.log(
      `splitScanP calibration, best of ${length - 5} splits of ${length} Gaussian points (${reps} seeded): corrected p < 0.05 in ${((100 * below5) / reps).toFixed(2)}%, < 0.01 in ${((100 * below1) / reps).toFixed(2)}% (Bonferroni < 0.05: ${((100 * bonferroni5) / reps).toFixed(2)}%)`,
    );
  }
}

// 4. Scale: the same step at any magnitude.
for (const magnitude of [1, 1e200, 1e-200, 8e307, 1e-310]) {
  const random = seededRandom(3);
  const values = Array.from(
    { length: 60 },
    (_, i) => magnitude * ((i >= 35 ? 2 : 1) + 0.05 * gaussian(random)),
  );
  const found = detectChangePoints(values);
  const text = found.map(
    (c) =>
      `index ${c.index}, means ${c.meanBefore.toPrecision(6)} -> ${c.meanAfter.toPrecision(6)}, change ${(100 * c.relativeChange).toFixed(2)}%, p ${c.p.toPrecision(4)}, all finite: ${Object.values(c).every((v) => typeof v !== 'number' || Number.isFinite(v))}`,
  );
  console.log(`step 1 -> 2 (noise 5%) x ${magnitude} at index 35 of 60: ${text.join('; ') || 'not found'}`);
}

// 5. Seeded simulation.
for (const maxP of [0.001, 0.0001]) {
  const o: ChangePointOptions = { ...log, maxP };
  const flat = [40, 100, 365, 1000].map((n) => {
    let flagged = 0;
    for (let seed = 1; seed <= 200; seed++)
      if (detectChangePoints(series(seed, n, []), o).length > 0) flagged++;
    return `n=${n}: ${((100 * flagged) / 200).toFixed(1)}%`;
  });
  console.log(`p < ${maxP}: flat series flagged (200 each, CV 1%): ${flat.join(', ')}`);
  for (const [n, at, label] of [
    [100, 60, 'step at 60 of 100'],
    [365, 300, 'step at 300 of 365'],
    [100, 97, 'step at 97 of 100 (3 points after it)'],
  ] as const) {
    const power = [1, 1.5, 2, 3, 5].map((sd) => {
      let hit = 0;
      for (let seed = 1; seed <= 200; seed++) {
        const found = detectChangePoints(series(seed, n, [[at, -sd * CV * 100]]), o);
        if (found.some((c) => Math.abs(c.index - at) <= 1)) hit++;
      }
      return `${sd} sd: ${((100 * hit) / 200).toFixed(1)}%`;
    });
    console.log(`p < ${maxP}: ${label} found within one point (200 each): ${power.join(', ')}`);
  }
}

// 6. The page with 50,000 points.
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

/** The largest |t| (pooled Student) over the splits of x leaving minSegment a side, by prefix sums. */
function maxAbsT(x: readonly number[], minSegment: number): number {
  const n = x.length;
  const sum = [0];
  const squares = [0];
  for (const v of x) {
    sum.push(sum.at(-1)! + v);
    squares.push(squares.at(-1)! + v * v);
  }
  let best = 0;
  for (let k = minSegment; k <= n - minSegment; k++) {
    const m1 = sum[k]! / k;
    const m2 = (sum[n]! - sum[k]!) / (n - k);
    const ss = squares[n]! - k * m1 * m1 - (n - k) * m2 * m2;
    const t = Math.abs(m2 - m1) / Math.sqrt((ss / (n - 2)) * (1 / k + 1 / (n - k)));
    best = Math.max(best, t);
  }
  return best;
}
