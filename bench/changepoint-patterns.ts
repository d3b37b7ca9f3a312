/**
 * The labelled pattern suite of the change-event detector (testkit/changepoint-patterns.ts): precision,
 * recall and F1 of event detection per pattern and kind, at the suite's location margin, for the events
 * stage (seriesEvents) and for E-Divisive's change points read as steps (what pgperf reported before);
 * then the time of each on a 400-point series of pure noise and one with a step.
 *
 * Run: npx tsx bench/changepoint-patterns.ts [--reps N] [--noise gauss-0.5%|gauss-1%|noisy-runner]
 *
 * Every series is seeded: the same command prints the same table. Figures are reported, never asserted.
 */
import { detectChangePoints } from '../src/core/stats/e-divisive.js';
import { seriesEvents } from '../src/core/history/series-events.js';
import {
  LENGTHS,
  MARGIN,
  NOISE_LEVELS,
  PATTERNS,
  driftPattern,
  matches,
  noiseSd,
  patternNamed,
  patternSeries,
  rates,
  score,
  type FoundEvent,
  type NoiseLevel,
  type PatternSeries,
  type Score,
} from '../testkit/changepoint-patterns.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const reps = Number(flag('--reps') ?? 20);
const levels = (flag('--noise') ? [flag('--noise')] : NOISE_LEVELS) as NoiseLevel[];

type Detector = (values: number[]) => FoundEvent[];
const detectors: Record<string, Detector> = {
  'change points': (values) =>
    detectChangePoints(values, { scale: 'log' }).map((c) => ({
      kind: 'step',
      from: c.index - 1,
      to: c.index,
    })),
  events: (values) => seriesEvents(values, { scale: 'log' }).events,
};

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(0)}%`);

console.log(
  `Pattern suite: ${reps} seeded series per pattern, length (${LENGTHS.join(', ')}) and noise level; ` +
    `margin ±${MARGIN} points (drift: half its span overlapped).`,
);
for (const noise of levels) {
  console.log(`\n### ${noise} (nightly sd ${(100 * noiseSd(noise)).toFixed(2)}% of ln TPS)\n`);
  console.log(
    '| pattern | kind | before: P / R / F1 | after: P / R / F1 | events of other kinds (before / after) | after: series with no event | after: exactly one drift event |',
  );
  console.log('| --- | --- | --: | --: | --: | --: | --: |');
  for (const pattern of PATTERNS) {
    const series: PatternSeries[] = [];
    for (const length of LENGTHS.filter((l) => l >= pattern.minLength)) {
      for (let seed = 1; seed <= reps; seed++) series.push(patternSeries(pattern, noise, length, seed));
    }
    const kinds = [...new Set(series.flatMap((s) => s.events.map((e) => e.kind)))];
    const found = Object.fromEntries(
      Object.entries(detectors).map(([name, detect]) => [name, series.map((s) => detect(s.values))]),
    );
    const quiet = found.events!.filter((f) => f.length === 0).length;
    const driftOnce = series.filter(
      (s, i) =>
        s.events.some((e) => e.kind === 'drift') &&
        found.events![i]!.length === 1 &&
        found.events![i]![0]!.kind === 'drift',
    ).length;
    const drifts = series.filter((s) => s.events.some((e) => e.kind === 'drift')).length;
    // A kind's row: planted events of that kind against found events of that kind.
    const total = (name: string, kind: string | null) =>
      series.reduce<Score>(
        (sum, s, i) => {
          const f = found[name]![i]!.filter((e) => kind === null || e.kind === kind);
          const r = score(f, kind === null ? s.events : s.events.filter((e) => e.kind === kind));
          return { tp: sum.tp + r.tp, fp: sum.fp + r.fp, fn: sum.fn + r.fn };
        },
        { tp: 0, fp: 0, fn: 0 },
      );
    // Events of kinds planted nowhere in the series: false alarms no kind's row counts.
    const others = (name: string) =>
      series.reduce(
        (sum, s, i) => sum + found[name]![i]!.filter((e) => !s.events.some((p) => p.kind === e.kind)).length,
        0,
      );
    const cell = (name: string, kind: string | null) => {
      const r = rates(total(name, kind));
      return `${pct(r.precision)} / ${pct(r.recall)} / ${pct(r.f1)}`;
    };
    const row = (kind: string | null) =>
      `| ${pattern.name} | ${kind ?? 'none'} | ${cell('change points', kind)} | ${cell('events', kind)} | ` +
      `${kind === null ? `${others('change points')} / ${others('events')}` : `${others('change points')} / ${others('events')}`} | ` +
      `${quiet}/${series.length} | ${drifts ? `${driftOnce}/${drifts}` : '—'} |`;
    if (kinds.length === 0) console.log(row(null));
    else for (const kind of kinds) console.log(row(kind));
  }
}

// The smallest drift over 60 nights each level can tell: the share of series (the suite's lengths that
// hold it) with exactly one event, a drift overlapping the planted one by half its span.
console.log('\n### Drift sizes over 60 nights: series with exactly one event, the planted drift\n');
const DRIFT_SIZES = [0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2];
console.log(
  `| noise | ${DRIFT_SIZES.map((d) => `${(100 * d).toFixed(0)}%`).join(' | ')} | smallest found ≥ 90% |`,
);
console.log(`| --- | ${DRIFT_SIZES.map(() => '--:').join(' | ')} | --: |`);
for (const noise of levels) {
  const shares = DRIFT_SIZES.map((size) => {
    const pattern = driftPattern(size, 60);
    let once = 0;
    let all = 0;
    for (const length of LENGTHS.filter((l) => l >= pattern.minLength))
      for (let seed = 1; seed <= reps; seed++) {
        const s = patternSeries(pattern, noise, length, seed);
        const found = detectors.events!(s.values);
        all++;
        if (found.length === 1 && matches(found[0]!, s.events[0]!)) once++;
      }
    return once / all;
  });
  const smallest = DRIFT_SIZES.find((_, i) => shares.slice(i).every((x) => x >= 0.9));
  console.log(
    `| ${noise} (sd ${(100 * noiseSd(noise)).toFixed(1)}%) | ${shares.map((x) => pct(x)).join(' | ')} | ` +
      `${smallest === undefined ? 'none' : `${(100 * smallest).toFixed(0)}%`} |`,
  );
}

// Speed: one 400-point series of pure noise (most nightly series) and one with a step, in 1% noise, timed
// over repeated calls.
for (const pattern of ['pure noise', 'step 5 sd']) {
  const sample = patternSeries(patternNamed(pattern), 'gauss-1%', 400, 1).values;
  for (const [name, detect] of Object.entries(detectors)) {
    for (let i = 0; i < 5; i++) detect(sample); // warm up
    const runs = 50;
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) detect(sample);
    console.log(
      `${pattern}, ${name}: ${((performance.now() - t0) / runs).toFixed(2)} ms per 400-point series`,
    );
  }
}
