/**
 * A labelled suite of nightly-history patterns for the change-event detector (src/core/history/
 * series-events.ts): seeded generators of ln(median TPS) series with the events planted in them, and the
 * scoring of what a detector found against those labels (precision, recall, F1 per pattern and kind, at a
 * stated location margin). bench/changepoint-patterns.ts prints the table; unit tests take single series.
 *
 * Noise levels: Gaussian with sd 0.5% (a quiet dedicated runner) and 1% (a typical one) on ln TPS, and the
 * real noisy runner (test/fixtures/noisy-runner/runs.csv: each night the median of 5 runs drawn from the
 * captured runs' deviations from their cell's median: heavy tails, some rounds at half speed; its nightly sd
 * is about 3.5%). Sizes are in multiples of the level's sd, so a pattern is as hard at every level, except
 * the issue's fixed drift of 2% over 60 nights.
 */
import { normalQuantile } from '../src/core/stats/normal-quantile.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import type { SeriesEventKind } from '../src/core/history/series-events.js';
import { noisyRunnerRuns } from './noisy-runner.js';

export type NoiseLevel = 'gauss-0.5%' | 'gauss-1%' | 'noisy-runner';
export const NOISE_LEVELS: readonly NoiseLevel[] = ['gauss-0.5%', 'gauss-1%', 'noisy-runner'];

/** An event planted in a series: its kind and span (from: last index before, to: first index after). */
export interface PlantedEvent {
  kind: SeriesEventKind;
  from: number;
  to: number;
}

export interface PatternSeries {
  pattern: string;
  noise: NoiseLevel;
  length: number;
  seed: number;
  /** ln of the nightly medians, oldest first. */
  values: number[];
  events: PlantedEvent[];
}

/** What a detector found, in the same terms as PlantedEvent. */
export type FoundEvent = PlantedEvent;

/** The level's nightly sd on ln TPS (the noisy runner's: its robust sd, measured once). */
export function noiseSd(level: NoiseLevel): number {
  if (level === 'gauss-0.5%') return 0.005;
  if (level === 'gauss-1%') return 0.01;
  return runnerSd();
}

/** A noise source of a level: one night's deviation per call. */
export function noiseSource(level: NoiseLevel, seed: number): () => number {
  const random = seededRandom(seed);
  if (level !== 'noisy-runner') {
    const sd = noiseSd(level);
    return () => sd * gaussian(random);
  }
  const pool = runnerPool();
  return () => {
    const draws = Array.from({ length: RUNS_PER_NIGHT }, () => pool[Math.floor(random() * pool.length)]!);
    return median(draws);
  };
}

/** Runs per night behind each noisy-runner point (a nightly median). */
export const RUNS_PER_NIGHT = 5;

export interface Pattern {
  name: string;
  /** Shortest series it is planted in. */
  minLength: number;
  /** The planted level (ln units) at each index, and the events; `sd` is the noise level's. */
  plant(
    length: number,
    sd: number,
    random: () => number,
  ): { level: number[]; events: PlantedEvent[]; scale?: number[] };
}

const at = (length: number, share: number) => Math.round(length * share);
/** A place for a change, away from both ends (at least 10 points, or a fifth of the series). */
const place = (length: number, random: () => number) => {
  const margin = Math.max(10, at(length, 0.2));
  return margin + Math.floor(random() * (length - 2 * margin));
};

function steps(sizes: number, count = 1): Pattern['plant'] {
  return (length, sd, random) => {
    const level = new Array<number>(length).fill(0);
    const events: PlantedEvent[] = [];
    const places =
      count === 1
        ? [place(length, random)]
        : [at(length, 0.33), at(length, 0.67)].map((p) => p + Math.floor(random() * 5));
    const sign = random() < 0.5 ? -1 : 1;
    for (const c of places) {
      for (let i = c; i < length; i++) level[i]! += sign * sizes * sd;
      events.push({ kind: 'step', from: c - 1, to: c });
    }
    return { level, events };
  };
}

function drift(total: (sd: number) => number, nights: number): Pattern['plant'] {
  return (length, sd, random) => {
    const start = Math.max(5, Math.floor((length - nights) * (0.3 + 0.4 * random())));
    const end = Math.min(length - 1, start + nights);
    const sign = random() < 0.5 ? -1 : 1;
    const d = sign * total(sd);
    const level = Array.from({ length }, (_, i) =>
      i <= start ? 0 : i >= end ? d : (d * (i - start)) / (end - start),
    );
    return { level, events: [{ kind: 'drift', from: start, to: end }] };
  };
}

/** A weekly load cycle: three nights of seven faster by `size` sd (a long weekend on a shared runner). */
function weekly(size: number): (length: number, sd: number) => number[] {
  return (length, sd) => Array.from({ length }, (_, i) => (i % 7 >= 4 ? size * sd : 0));
}

/** A monthly cycle: fifteen nights of thirty slower by `size` sd (a batch job on the host). */
function monthly(size: number): (length: number, sd: number) => number[] {
  return (length, sd) => Array.from({ length }, (_, i) => (i % 30 >= 15 ? -size * sd : 0));
}

/** Isolated outliers: one night in about 25 off by 6-10 sd, either way. */
function outliers(length: number, sd: number, random: () => number): number[] {
  const level = new Array<number>(length).fill(0);
  for (let i = 2; i < length - 2; i += 20 + Math.floor(random() * 10))
    level[i] = (random() < 0.5 ? -1 : 1) * (6 + 4 * random()) * sd;
  return level;
}

function dip(size: number, nights: number): Pattern['plant'] {
  return (length, sd, random) => {
    const c = place(length, random);
    const level = Array.from({ length }, (_, i) => (i >= c && i < c + nights ? -size * sd : 0));
    return { level, events: [{ kind: 'transient', from: c - 1, to: c + nights }] };
  };
}

function noisier(ratio: number): Pattern['plant'] {
  return (length, _sd, random) => {
    const c = place(length, random);
    const scale = Array.from({ length }, (_, i) => (i >= c ? ratio : 1));
    return {
      level: new Array<number>(length).fill(0),
      events: [{ kind: 'noisier', from: c - 1, to: c }],
      scale,
    };
  };
}

const add = (a: number[], b: number[]) => a.map((x, i) => x + b[i]!);

export const PATTERNS: readonly Pattern[] = [
  {
    name: 'pure noise',
    minLength: 30,
    plant: (length) => ({ level: new Array<number>(length).fill(0), events: [] }),
  },
  { name: 'step 3 sd', minLength: 30, plant: steps(3) },
  { name: 'step 5 sd', minLength: 30, plant: steps(5) },
  { name: 'step 10 sd', minLength: 30, plant: steps(10) },
  { name: 'two steps 5 sd', minLength: 60, plant: steps(5, 2) },
  { name: 'drift 8 sd / 60 nights', minLength: 120, plant: drift((sd) => 8 * sd, 60) },
  { name: 'drift 2% / 60 nights', minLength: 120, plant: drift(() => Math.log(1.02), 60) },
  { name: 'drift 10 sd / 150 nights', minLength: 240, plant: drift((sd) => 10 * sd, 150) },
  {
    name: 'weekly cycle 4 sd',
    minLength: 30,
    plant: (length, sd) => ({ level: weekly(4)(length, sd), events: [] }),
  },
  {
    name: 'monthly cycle 4 sd',
    minLength: 120,
    plant: (length, sd) => ({ level: monthly(4)(length, sd), events: [] }),
  },
  {
    name: 'outliers',
    minLength: 30,
    plant: (length, sd, random) => ({ level: outliers(length, sd, random), events: [] }),
  },
  { name: 'dip 8 sd / 5 nights', minLength: 30, plant: dip(8, 5) },
  { name: 'noisier x3', minLength: 60, plant: noisier(3) },
  {
    name: 'step 5 sd + monthly cycle',
    minLength: 120,
    plant: (length, sd, random) => {
      const s = steps(5)(length, sd, random);
      return { level: add(s.level, monthly(4)(length, sd)), events: s.events };
    },
  },
  {
    name: 'drift 8 sd + outliers',
    minLength: 120,
    plant: (length, sd, random) => {
      const d = drift((x) => 8 * x, 60)(length, sd, random);
      return { level: add(d.level, outliers(length, sd, random)), events: d.events };
    },
  },
  {
    name: 'step 5 sd + dip',
    minLength: 120,
    plant: (length, sd, random) => {
      const c = at(length, 0.3) + Math.floor(random() * 5);
      const s = Array.from({ length }, (_, i) => (i >= c ? -5 * sd : 0));
      const d = dip(8, 5)(length, sd, () => 0.9); // late in the series, after the step
      return { level: add(s, d.level), events: [{ kind: 'step', from: c - 1, to: c }, ...d.events] };
    },
  },
];

/**
 * A drift of a fixed relative size (e.g. 0.02: TPS 2 % lower or higher at its end) over `nights`, for the
 * sweep of drift sizes (bench/changepoint-patterns.ts: the smallest drift found at a noise level).
 */
export function driftPattern(relative: number, nights: number): Pattern {
  return {
    name: `drift ${(100 * relative).toFixed(0)}% / ${nights} nights`,
    minLength: 2 * nights,
    plant: drift(() => Math.log1p(relative), nights),
  };
}

/** Series lengths of the suite: a month to over a year of nights. */
export const LENGTHS: readonly number[] = [30, 60, 120, 250, 400];

/** One seeded series of a pattern. */
export function patternSeries(
  pattern: Pattern,
  noise: NoiseLevel,
  length: number,
  seed: number,
): PatternSeries {
  const random = seededRandom(seed * 7919 + length);
  const source = noiseSource(noise, seed * 104729 + length * 31 + NOISE_LEVELS.indexOf(noise));
  const sd = noiseSd(noise);
  const planted = pattern.plant(length, sd, random);
  const base = Math.log(50_000);
  const values = planted.level.map((l, i) => base + l + (planted.scale?.[i] ?? 1) * source());
  return { pattern: pattern.name, noise, length, seed, values, events: planted.events };
}

/** A pattern by name (tests take single series of the suite). */
export function patternNamed(name: string): Pattern {
  const p = PATTERNS.find((x) => x.name === name);
  if (!p) throw new Error(`no pattern '${name}'`);
  return p;
}

/** Location margin of a match: a step, transient or noisier event within this many points of the truth. */
export const MARGIN = 3;

/**
 * Whether a found event is the planted one: the same kind, and for a step, a transient or noisier its
 * first point after (`to`, for a transient its first point `from + 1`) within MARGIN points; for a drift,
 * spans that overlap by at least half the planted one's.
 */
export function matches(found: FoundEvent, planted: PlantedEvent): boolean {
  if (found.kind !== planted.kind) return false;
  if (planted.kind === 'drift') {
    const overlap = Math.min(found.to, planted.to) - Math.max(found.from, planted.from);
    return overlap >= 0.5 * (planted.to - planted.from);
  }
  if (planted.kind === 'transient') return Math.abs(found.from - planted.from) <= MARGIN;
  return Math.abs(found.to - planted.to) <= MARGIN;
}

/** Counts of one series: each planted event matched at most once, each found event at most once. */
export interface Score {
  tp: number;
  fp: number;
  fn: number;
}

export function score(found: readonly FoundEvent[], planted: readonly PlantedEvent[]): Score {
  const used = new Set<number>();
  let tp = 0;
  for (const p of planted) {
    const k = found.findIndex((f, i) => !used.has(i) && matches(f, p));
    if (k >= 0) {
      used.add(k);
      tp++;
    }
  }
  return { tp, fp: found.length - used.size, fn: planted.length - tp };
}

/** precision, recall and F1 of summed counts (null where undefined: nothing found, nothing planted). */
export function rates(s: Score): { precision: number | null; recall: number | null; f1: number | null } {
  const precision = s.tp + s.fp > 0 ? s.tp / (s.tp + s.fp) : null;
  const recall = s.tp + s.fn > 0 ? s.tp / (s.tp + s.fn) : null;
  const f1 =
    precision !== null && recall !== null && precision + recall > 0
      ? (2 * precision * recall) / (precision + recall)
      : null;
  return { precision, recall, f1 };
}

function gaussian(random: () => number): number {
  return normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));
}

function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

let pool: number[] | undefined;
/** The captured runs' ln TPS minus their cell's median (session × clients × arm). */
function runnerPool(): number[] {
  if (pool) return pool;
  const groups = new Map<string, number[]>();
  for (const r of noisyRunnerRuns()) {
    const key = `${r.session}/${r.clients}/${r.arm}`;
    groups.set(key, [...(groups.get(key) ?? []), Math.log(r.tps)]);
  }
  pool = [...groups.values()].flatMap((v) => v.map((x) => x - median(v)));
  return pool;
}

let sdOfRunner: number | undefined;
/** The robust sd (1.4826·MAD) of 10⁴ seeded noisy-runner nights. */
function runnerSd(): number {
  if (sdOfRunner !== undefined) return sdOfRunner;
  const source = noiseSource('noisy-runner', 1);
  const nights = Array.from({ length: 10_000 }, source);
  const m = median(nights);
  sdOfRunner = 1.4826 * median(nights.map((x) => Math.abs(x - m)));
  return sdOfRunner;
}
