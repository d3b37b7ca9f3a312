/**
 * Which primary test: the paired signed-rank test on per-round ln(head/base) or the unpaired Mann–Whitney
 * test on the runs? Seeded simulation through the real compareRun (one cell, α 0.05, δ 2%), 1000 replicates
 * per point, under four noise models:
 *
 * (a) iid: independent lognormal run-to-run noise (3%), no round structure;
 * (b) drift: the same noise plus a slow 20% drift of the machine over the session (ABBA order in rounds);
 * (c) swings: between-round level swings resampled from the real idle-machine session (session 2 of
 *     test/fixtures/noisy-runner: ln TPS around its median per client count) times within-round run noise
 *     with the spread of the real A/A pairs of session 1;
 * (d) real: rounds bootstrapped from the real A/A pairs of session 1 (base vs base-rebuilt, arms swapped
 *     at random so that the null holds exactly), the planted effect multiplied into head.
 *
 * It prints, per model, test and rounds: the false significance rate (p < α at no change), and the share
 * of comparisons called 'regression' at each planted slowdown.
 *
 * Run: npx tsx bench/paired-vs-unpaired.ts [replicates]
 */
import { compareRun } from '../src/core/compare/analysis/compare-run.js';
import type { Sample } from '../src/core/results/result-types.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { noisyRunnerRuns } from '../testkit/noisy-runner.js';
import { document, gaussian, sample } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 1000);
const ROUNDS = [6, 10, 15, 20];
const ALPHA = 0.05;

type Pair = { base: number; head: number };
/** Draws the (base, head) values of `rounds` rounds under no change; the effect is applied afterwards. */
type Model = (random: () => number, rounds: number) => Pair[];

const runs = noisyRunnerRuns();
const sd = (x: number[]) => {
  const m = x.reduce((a, b) => a + b, 0) / x.length;
  return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1));
};
const medianOf = (x: number[]) => {
  const s = [...x].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
// Session 1: A/A pairs per round and client count.
const session1Pairs = [1, 2].flatMap((clients) =>
  Array.from({ length: 10 }, (_, i) => {
    const r = runs.filter((x) => x.session === 1 && x.round === i + 1 && x.clients === clients);
    return {
      clients,
      base: r.find((x) => x.arm === 'base')!.tps,
      head: r.find((x) => x.arm === 'base-rebuilt')!.tps,
    };
  }),
);
const withinSd = sd(session1Pairs.map((p) => Math.log(p.head / p.base))) / Math.SQRT2;
// Session 2: between-round levels per client count, as ln deviations from the median.
const session2Levels = [1, 2].flatMap((clients) => {
  const ln = runs.filter((x) => x.session === 2 && x.clients === clients).map((x) => Math.log(x.tps));
  const m = medianOf(ln);
  return ln.map((v) => v - m);
});

const models: Record<string, { model: Model; effects: number[] }> = {
  'a iid 3%': {
    effects: [-0.03],
    model: (random, rounds) => {
      const z = gaussian(random);
      return Array.from({ length: rounds }, () => ({
        base: 10_000 * Math.exp(0.03 * z()),
        head: 10_000 * Math.exp(0.03 * z()),
      }));
    },
  },
  'b drift 20%': {
    effects: [-0.03],
    model: (random, rounds) => {
      const z = gaussian(random);
      const at = (position: number) => 1 + (0.2 * position) / (2 * rounds);
      return Array.from({ length: rounds }, (_, i) => {
        const [b, h] = i % 2 === 0 ? [2 * i, 2 * i + 1] : [2 * i + 1, 2 * i]; // ABBA
        return {
          base: 10_000 * at(b) * Math.exp(0.03 * z()),
          head: 10_000 * at(h) * Math.exp(0.03 * z()),
        };
      });
    },
  },
  'c swings': {
    effects: [-0.05, -0.1],
    model: (random, rounds) => {
      const z = gaussian(random);
      return Array.from({ length: rounds }, () => {
        const level = 40_000 * Math.exp(session2Levels[Math.floor(random() * session2Levels.length)]!);
        return { base: level * Math.exp(withinSd * z()), head: level * Math.exp(withinSd * z()) };
      });
    },
  },
  'd real A/A': {
    effects: [-0.05, -0.1],
    model: (random, rounds) => {
      const clients = random() < 0.5 ? 1 : 2;
      const pool = session1Pairs.filter((p) => p.clients === clients);
      return Array.from({ length: rounds }, () => {
        const p = pool[Math.floor(random() * pool.length)]!;
        return random() < 0.5 ? { base: p.base, head: p.head } : { base: p.head, head: p.base };
      });
    },
  },
};

function documentOf(pairs: Pair[], effect: number) {
  const samples: Sample[] = pairs.flatMap((p, i) => [
    sample({ round: i + 1, workload: 'w', clients: 1, arm: 'base', metrics: { tps: p.base } }),
    sample({ round: i + 1, workload: 'w', clients: 1, arm: 'head', metrics: { tps: p.head * (1 + effect) } }),
  ]);
  return document(['base', 'head'], { w: [1] }, pairs.length, samples);
}

console.log(
  `paired signed-rank vs unpaired Mann-Whitney, one cell, alpha ${ALPHA}, threshold 2%, ${REPLICATES} replicates per point`,
);
console.log(
  `real noise: within-round run SD ${(100 * withinSd).toFixed(1)}% (session 1 A/A pairs / sqrt 2); ` +
    `between-round level SD ${(100 * sd(session2Levels)).toFixed(1)}% (session 2)`,
);
const rows: string[][] = [['model', 'test', 'rounds', 'A/A p<α', 'A/A regression', 'regression called at']];
let seed = 1;
for (const [name, { model, effects }] of Object.entries(models)) {
  for (const rounds of ROUNDS) {
    const counts = {
      paired: { sig: 0, reg: 0, power: effects.map(() => 0) },
      unpaired: { sig: 0, reg: 0, power: effects.map(() => 0) },
    };
    for (let r = 0; r < REPLICATES; r++) {
      const random = seededRandom(seed++);
      const pairs = model(random, rounds);
      for (const test of ['paired', 'unpaired'] as const) {
        const null_ = compareRun(documentOf(pairs, 0), { test }).comparisons[0]!.cells[0]!;
        if (null_.p !== null && null_.p < ALPHA) counts[test].sig++;
        if (null_.verdict === 'regression') counts[test].reg++;
        effects.forEach((e, i) => {
          const c = compareRun(documentOf(pairs, e), { test }).comparisons[0]!.cells[0]!;
          if (c.verdict === 'regression') counts[test].power[i]!++;
        });
      }
    }
    for (const test of ['paired', 'unpaired'] as const) {
      const c = counts[test];
      rows.push([
        name,
        test === 'paired' ? 'signed-rank' : 'mann-whitney',
        String(rounds),
        (c.sig / REPLICATES).toFixed(3),
        (c.reg / REPLICATES).toFixed(3),
        effects
          .map((e, i) => `${(100 * e).toFixed(0)}%: ${(c.power[i]! / REPLICATES).toFixed(3)}`)
          .join(', '),
      ]);
    }
  }
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(`| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`);
