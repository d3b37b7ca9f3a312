/**
 * The adaptive design (src/core/compare/adaptive.ts) by seeded simulation through the real compare code: looks
 * at 6, 10, 15, 20, 30 rounds, O'Brien–Fleming-type α-spending (α 0.05), Holm across every head arm and
 * cell at each look, TOST equivalence at the look's level, δ 2%, a cell stops when decided, the run stops
 * when every cell is decided, a regression is certified, or at 30 rounds.
 *
 * Noise models (multiplicative, lognormal):
 * - "iid X%": every run independent with CV X%;
 * - "rounds X%": total run CV X%, half its variance shared by base and head within a round (as on the
 *   real runner, where most noise is between rounds), so ln(head/base) per round has SD X%.
 *
 * Printed per scenario: the share of comparisons whose overall verdict is regression, improvement/mixed,
 * no-change, the share of (head, cell) comparisons decided no-change, likely regression (inconclusive with the 'likely-regression' reason), the mean rounds until the
 * run stopped, and the mean rounds each cell was measured (decided cells stop early). For the power
 * scenarios also the fixed design (one analysis at α, Holm across cells) of the same power.
 *
 * Run: npx tsx bench/adaptive-sim.ts [replicates]
 */
import { adaptiveLook, planAdaptive, type AdaptivePlan } from '../src/core/compare/adaptive.js';
import { compareRun } from '../src/core/compare/compare-run.js';
import type { RunComparison } from '../src/core/compare/types.js';
import type { Sample } from '../src/core/results/types.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { document, gaussian, sample } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 1000);
const SCHEDULE = [6, 10, 15, 20, 30];
const MAX_ROUNDS = 30;
const plan = planAdaptive({
  schedule: SCHEDULE,
  alpha: 0.05,
  spending: 'obrien-fleming',
  maxRounds: MAX_ROUNDS,
});

interface Scenario {
  name: string;
  cells: number;
  heads: number;
  noisePct: number;
  shared: boolean;
  /** Multiplicative effect on head arm h (0-based) in cell c. */
  effect: (head: number, cell: number) => number;
  /** Also search the fixed design of the same power (power = overall verdict 'regression'). */
  fixed?: boolean;
}

const none = () => 1;
const scenarios: Scenario[] = [
  { name: 'A/A, 7 cells, iid 3%', cells: 7, heads: 1, noisePct: 3, shared: false, effect: none },
  { name: 'A/A, 7 cells, rounds 10%', cells: 7, heads: 1, noisePct: 10, shared: true, effect: none },
  { name: 'A/A/A, 7 cells x 2 heads, iid 3%', cells: 7, heads: 2, noisePct: 3, shared: false, effect: none },
  { name: 'A/A, 1 cell, iid 3%', cells: 1, heads: 1, noisePct: 3, shared: false, effect: none },
  { name: 'A/A, 1 cell, rounds 3%', cells: 1, heads: 1, noisePct: 3, shared: true, effect: none },
  { name: 'A/A, 7 cells, rounds 3%', cells: 7, heads: 1, noisePct: 3, shared: true, effect: none },
  {
    name: '-5%, 1 cell, iid 5%',
    cells: 1,
    heads: 1,
    noisePct: 5,
    shared: false,
    effect: (h) => (h === 0 ? 0.95 : 1),
    fixed: true,
  },
  {
    name: '-5% in all 7 cells, iid 5%',
    cells: 7,
    heads: 1,
    noisePct: 5,
    shared: false,
    effect: () => 0.95,
    fixed: true,
  },
  {
    name: '-5% in 1 of 7 cells, iid 5%',
    cells: 7,
    heads: 1,
    noisePct: 5,
    shared: false,
    effect: (_, c) => (c === 0 ? 0.95 : 1),
    fixed: true,
  },
  {
    name: '-5% in 1 of 7 cells, 2nd head A/A, iid 5%',
    cells: 7,
    heads: 2,
    noisePct: 5,
    shared: false,
    effect: (h, c) => (h === 0 && c === 0 ? 0.95 : 1),
    fixed: true,
  },
  {
    name: '-3%, 1 cell, rounds 5%',
    cells: 1,
    heads: 1,
    noisePct: 5,
    shared: true,
    effect: (h) => (h === 0 ? 0.97 : 1),
    fixed: true,
  },
];

function simulate(s: Scenario, seed: number) {
  const random = seededRandom(seed);
  const z = gaussian(random);
  const sigma = Math.log1p(s.noisePct / 100);
  const [roundSd, runSd] = s.shared ? [sigma / Math.SQRT2, sigma / Math.SQRT2] : [0, sigma];
  const arms = ['base', ...Array.from({ length: s.heads }, (_, h) => `head${h + 1}`)];
  const clients = Array.from({ length: s.cells }, (_, c) => 2 ** c);
  const samples: Sample[] = [];
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    clients.forEach((cl, c) => {
      const shared = roundSd * z();
      arms.forEach((arm, a) => {
        const effect = a === 0 ? 1 : s.effect(a - 1, c);
        const tps = 10_000 * effect * Math.exp(shared + runSd * z());
        samples.push(sample({ round, workload: 'w', clients: cl, arm, metrics: { tps } }));
      });
    });
  }
  return document(arms, { w: clients }, MAX_ROUNDS, samples);
}

const alarm = (c: RunComparison) =>
  c.verdict === 'regression' || c.verdict === 'improvement' || c.verdict === 'mixed';

function run(s: Scenario, p: AdaptivePlan) {
  const t = {
    cellsNoChange: 0,
    regression: 0,
    otherAlarm: 0,
    noChange: 0,
    likely: 0,
    rounds: 0,
    cellRounds: 0,
    fixed: new Map<number, number>(),
  };
  const FIXED = [10, 12, 15, 18, 20, 24, 30];
  for (let r = 0; r < REPLICATES; r++) {
    const doc = simulate(s, 1_000_003 * (1 + r) + s.name.length);
    const out = adaptiveLook(doc, p, { look: p.schedule.length });
    const c = out.comparison;
    if (c.verdict === 'regression') t.regression++;
    else if (alarm(c)) t.otherAlarm++;
    if (c.verdict === 'no-change') t.noChange++;
    t.cellsNoChange += c.comparisons.flatMap((a) => a.cells).filter((x) => x.verdict === 'no-change').length;
    if (c.verdict === 'inconclusive' && c.likelyRegressions.length > 0) t.likely++;
    t.rounds += out.rounds;
    // A cell is measured until every head arm is decided for it, or the run stops.
    const cellIds = c.comparisons[0]!.cells.map((x) => x.id);
    for (const id of cellIds) {
      const looks = c.comparisons.map(
        (a) => out.decidedCells.find((d) => d.head === a.head && d.id === id)?.look ?? out.look,
      );
      t.cellRounds += p.schedule[Math.max(...looks) - 1]!;
    }
    if (s.fixed) {
      for (const n of FIXED) {
        const cut = { ...doc, samples: doc.samples.filter((x) => x.round <= n) };
        if (compareRun(cut, { alpha: p.alpha }).verdict === 'regression')
          t.fixed.set(n, (t.fixed.get(n) ?? 0) + 1);
      }
    }
  }
  const share = (k: number) => (k / REPLICATES).toFixed(3);
  const power = t.regression / REPLICATES;
  // Rounds of the fixed design with the adaptive design's power, interpolated linearly on the grid.
  const fixedPower = (n: number) => (t.fixed.get(n) ?? 0) / REPLICATES;
  const above = FIXED.findIndex((n) => fixedPower(n) >= power);
  const fixedSame =
    !s.fixed || above < 0
      ? undefined
      : above === 0
        ? FIXED[0]!
        : FIXED[above - 1]! +
          ((FIXED[above]! - FIXED[above - 1]!) * (power - fixedPower(FIXED[above - 1]!))) /
            (fixedPower(FIXED[above]!) - fixedPower(FIXED[above - 1]!));
  return [
    s.name,
    share(t.regression),
    share(t.otherAlarm),
    share(t.noChange),
    share(t.cellsNoChange / (s.cells * s.heads)),
    share(t.likely),
    (t.rounds / REPLICATES).toFixed(1),
    (t.cellRounds / (REPLICATES * s.cells)).toFixed(1),
    s.fixed
      ? `${FIXED.map((n) => `${n}:${share(t.fixed.get(n) ?? 0)}`).join(' ')}; same power: ${fixedSame === undefined ? '>30' : fixedSame.toFixed(1)}`
      : '',
  ];
}

console.log(
  `adaptive design: looks ${plan.schedule.join(', ')}, ${plan.spending} spending, alpha ${plan.alpha}, ` +
    `per-look alpha ${plan.lookAlpha.map((a) => a.toPrecision(2)).join(', ')}, threshold 2%, ${REPLICATES} replicates`,
);
const rows = [
  [
    'scenario',
    'regression',
    'improvement/mixed',
    'no-change',
    'cells no-change',
    'likely regression',
    'rounds to stop',
    'rounds per cell',
    'fixed design: power at N rounds',
  ],
];
for (const s of scenarios) {
  const only = process.env.SCENARIO;
  if (only && !s.name.includes(only)) continue;
  rows.push(run(s, plan));
  console.error(`done: ${s.name}`);
}
console.log(`| ${rows[0]!.join(' | ')} |`);
console.log(`|${rows[0]!.map(() => '---').join('|')}|`);
for (const r of rows.slice(1)) console.log(`| ${r.join(' | ')} |`);
