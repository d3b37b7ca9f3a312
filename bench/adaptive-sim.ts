/**
 * The adaptive design (src/core/compare/analysis/adaptive.ts) and the confirmation block
 * (src/core/compare/analysis/confirmation.ts) by seeded simulation through the real compare and decision code: looks
 * at 6, 10, 15, 20, 30 rounds; the regression question with O'Brien–Fleming-type α-spending (α 0.05) and
 * Holm across every head arm and cell at each look; the pass question (non-inferiority, "head not worse than
 * base by δ", one-sided; no-change when the interval is also inside ±δ) with its own front-loaded α (default 0.1) per
 * cell; δ 2%; a cell stops when decided, the run stops when every cell is decided, a regression is
 * certified, or at 30 rounds. A regressed cell is then re-measured in a confirmation block of 6 fresh rounds
 * (the same noise model) and judged on them alone (one-sided at α 0.05); the decision (decide()) gives the
 * outcome: failed (a confirmed regression, or a likely one), pending (unconfirmed or undecided), passed.
 *
 * Noise models (multiplicative, lognormal):
 * - "iid X%": every run independent with CV X%;
 * - "rounds X%": total run CV X%, half its variance shared by base and head within a round (as on the
 *   real runner, where most noise is between rounds), so ln(head/base) per round has SD X%.
 *
 * Printed per scenario: the share of runs whose main verdict was a regression (before confirmation), the
 * decision's outcomes (failed, pending, passed; for an A/A scenario "failed" is a false alarm, for a
 * regression scenario "passed" a false pass), the share of cells passed as no-change and as not-worse, the
 * median rounds until the run stopped (confirmation rounds included), the mean and median rounds each cell
 * was measured (decided cells stop early; confirmation rounds included), and the mean confirmation rounds
 * per run. For the power scenarios also the fixed design (one analysis at α, Holm across cells).
 *
 * Run: npx tsx bench/adaptive-sim.ts [replicates]   (SCENARIO=text runs only the matching scenarios;
 * PASS_ALPHA=a sets the pass question's α instead of the default)
 */
import {
  DEFAULT_SCHEDULE,
  adaptiveLook,
  designSequential,
  type SequentialDesign,
} from '../src/core/compare/analysis/adaptive.js';
import { compareRun } from '../src/core/compare/analysis/compare-run.js';
import { confirmationTargets, withConfirmation } from '../src/core/compare/analysis/confirmation.js';
import { decide } from '../src/core/compare/decision/decision.js';
import { cellId } from '../src/core/results/result-types.js';
import type { Sample } from '../src/core/results/result-types.js';
import { median } from 'simple-statistics';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { document, gaussian, sample } from '../testkit/synthetic-run.js';

const REPLICATES = Number(process.argv[2] ?? 1000);
const SCHEDULE = process.env.SCHEDULE ? process.env.SCHEDULE.split(',').map(Number) : [...DEFAULT_SCHEDULE];
const MAX_ROUNDS = 30;
const CONFIRM_ROUNDS = 6;
const plan = designSequential({
  schedule: SCHEDULE,
  alpha: 0.05,
  spending: 'obrien-fleming',
  maxRounds: MAX_ROUNDS,
  ...(process.env.PASS_ALPHA ? { passAlpha: Number(process.env.PASS_ALPHA) } : {}),
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
  { name: 'A/A, 7 cells, rounds 1%', cells: 7, heads: 1, noisePct: 1, shared: true, effect: none },
  {
    name: '-60% (a head that waits), 1 cell, rounds 20%',
    cells: 1,
    heads: 1,
    noisePct: 20,
    shared: true,
    effect: (h) => (h === 0 ? 0.4 : 1),
  },
  {
    name: '-10%, 1 cell, rounds 5%',
    cells: 1,
    heads: 1,
    noisePct: 5,
    shared: true,
    effect: (h) => (h === 0 ? 0.9 : 1),
  },
  {
    name: '-5%, 1 cell, rounds 3%',
    cells: 1,
    heads: 1,
    noisePct: 3,
    shared: true,
    effect: (h) => (h === 0 ? 0.95 : 1),
  },
  {
    name: '-3%, 1 cell, rounds 3%',
    cells: 1,
    heads: 1,
    noisePct: 3,
    shared: true,
    effect: (h) => (h === 0 ? 0.97 : 1),
  },
  {
    name: '-2% (at the threshold), 1 cell, rounds 3%',
    cells: 1,
    heads: 1,
    noisePct: 3,
    shared: true,
    effect: (h) => (h === 0 ? 0.98 : 1),
  },
  {
    name: '-5% in 1 of 7 cells, rounds 3%',
    cells: 7,
    heads: 1,
    noisePct: 3,
    shared: true,
    effect: (_, c) => (c === 0 ? 0.95 : 1),
  },
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

/** The main document (MAX_ROUNDS rounds) and the rounds a confirmation block would measure (fresh noise). */
function simulate(s: Scenario, seed: number): { doc: ReturnType<typeof document>; block: Sample[] } {
  const random = seededRandom(seed);
  const z = gaussian(random);
  const sigma = Math.log1p(s.noisePct / 100);
  const [roundSd, runSd] = s.shared ? [sigma / Math.SQRT2, sigma / Math.SQRT2] : [0, sigma];
  const arms = ['base', ...Array.from({ length: s.heads }, (_, h) => `head${h + 1}`)];
  const clients = Array.from({ length: s.cells }, (_, c) => 2 ** c);
  const samples: Sample[] = [];
  const block: Sample[] = [];
  for (let r = 1; r <= MAX_ROUNDS + CONFIRM_ROUNDS; r++) {
    const [round, into] = r > MAX_ROUNDS ? [r - MAX_ROUNDS, block] : [r, samples];
    clients.forEach((cl, c) => {
      const shared = roundSd * z();
      arms.forEach((arm, a) => {
        const effect = a === 0 ? 1 : s.effect(a - 1, c);
        const tps = 10_000 * effect * Math.exp(shared + runSd * z());
        into.push(sample({ round, workload: 'w', clients: cl, arm, metrics: { tps } }));
      });
    });
  }
  return { doc: document(arms, { w: clients }, MAX_ROUNDS, samples), block };
}

function run(s: Scenario, p: SequentialDesign) {
  const t = {
    regression: 0,
    failed: 0,
    pending: 0,
    passed: 0,
    cellsNoChange: 0,
    cellsNotWorse: 0,
    confirmRounds: 0,
    stops: [] as number[],
    cellRounds: [] as number[],
    fixed: new Map<number, number>(),
  };
  const FIXED = [10, 12, 15, 18, 20, 24, 30];
  for (let r = 0; r < REPLICATES; r++) {
    const { doc, block } = simulate(s, 1_000_003 * (1 + r) + s.name.length);
    const out = adaptiveLook(doc, p, { look: p.schedule.length });
    const main = out.comparison;
    if (main.verdict === 'regression' || main.verdict === 'mixed') t.regression++;
    // The confirmation block: the regressed cells, measured again, judged on their own rounds.
    const targets = confirmationTargets(main);
    const blockIds = new Set(targets.map((x) => cellId(x)));
    if (targets.length > 0) {
      doc.confirmation = {
        rounds: CONFIRM_ROUNDS,
        seed: r,
        cells: targets,
        samples: block.filter((x) => blockIds.has(cellId(x))),
      };
    }
    const decision = decide(withConfirmation(doc, main));
    t[decision.outcome === 'incomplete' ? 'pending' : decision.outcome]++;
    const cells = main.comparisons.flatMap((a) => a.cells);
    t.cellsNoChange += cells.filter((x) => x.verdict === 'no-change').length;
    t.cellsNotWorse += cells.filter((x) => x.verdict === 'not-worse').length;
    const extra = targets.length > 0 ? CONFIRM_ROUNDS : 0;
    t.confirmRounds += extra * blockIds.size;
    t.stops.push(out.rounds + extra);
    // A cell is measured until every head arm is decided for it, or the run stops; then its block, if any.
    for (const id of main.comparisons[0]!.cells.map((x) => x.id)) {
      const looks = main.comparisons.map(
        (a) => out.decidedCells.find((d) => d.head === a.head && d.id === id)?.look ?? out.look,
      );
      t.cellRounds.push(p.schedule[Math.max(...looks) - 1]! + (blockIds.has(id) ? CONFIRM_ROUNDS : 0));
    }
    if (s.fixed) {
      for (const n of FIXED) {
        const cut = { ...doc, samples: doc.samples.filter((x) => x.round <= n) };
        delete cut.confirmation;
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
  const meanCell = t.cellRounds.reduce((a, b) => a + b, 0) / t.cellRounds.length;
  return [
    s.name,
    share(t.regression),
    share(t.failed),
    share(t.pending),
    share(t.passed),
    share(t.cellsNoChange / (s.cells * s.heads)),
    share(t.cellsNotWorse / (s.cells * s.heads)),
    String(median(t.stops)),
    meanCell.toFixed(1),
    String(median(t.cellRounds)),
    (t.confirmRounds / REPLICATES).toFixed(2),
    s.fixed
      ? `${FIXED.map((n) => `${n}:${share(t.fixed.get(n) ?? 0)}`).join(' ')}; same power: ${fixedSame === undefined ? '>30' : fixedSame.toFixed(1)}`
      : '',
  ];
}

console.log(
  `adaptive design: looks ${plan.schedule.join(', ')}, ${plan.spending} spending, alpha ${plan.alpha}, ` +
    `per-look alpha ${plan.lookAlpha.map((a) => a.toPrecision(2)).join(', ')}; pass question (one-sided, per cell): ` +
    `alpha ${plan.passAlphaTotal}, spent per look ${plan.passAlpha!.map((a) => a.toPrecision(2)).join(', ')} ` +
    `(sum ${plan.passAlpha!.reduce((a, b) => a + b, 0).toPrecision(3)}); threshold 2%; confirmation block ` +
    `${CONFIRM_ROUNDS} rounds at alpha ${plan.alpha}; ${REPLICATES} replicates`,
);
const rows = [
  [
    'scenario',
    'main verdict regression',
    'gate failed',
    'pending',
    'passed',
    'cells no-change',
    'cells not-worse',
    'median rounds to stop',
    'mean rounds per cell',
    'median rounds per cell',
    'confirmation cell-rounds per run',
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
