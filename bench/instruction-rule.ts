/**
 * The instruction verdict rule (src/core/compare/analysis/instruction-verdict.ts) by seeded simulation through the
 * real rule: k repetitions per arm of a per-transaction count with Gaussian noise of CV c (the measured
 * cachegrind CV on a 2-core VM was 0.2-0.4 %), δ = 1 %. Printed per scenario: the share of cells judged
 * regression, improvement, no-change and inconclusive. For A/A, "regression" is a false alarm (bounded by
 * 1/C(2k, k) whatever c is); for a real +x % change, "regression" is the power and "no-change" a false pass.
 *
 * Run: npx tsx bench/instruction-rule.ts [replicates]
 */
import { judgeInstructions } from '../src/core/compare/evidence/instruction-rule.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { gaussian } from '../testkit/synthetic-run.js';

const replicates = Number(process.argv[2] ?? 20_000);
const THRESHOLD_PCT = 1;

interface Scenario {
  effectPct: number;
  cvPct: number;
  k: number;
}

const scenarios: Scenario[] = [];
for (const k of [3, 5]) {
  for (const cvPct of [0.2, 0.4, 1, 3]) {
    for (const effectPct of [0, 0.5, 1.5, 2, 5]) scenarios.push({ effectPct, cvPct, k });
  }
}

console.log(`instruction rule, δ ${THRESHOLD_PCT}%, ${replicates} replicates per scenario (seeded)`);
console.log('k   CV%   effect%   regression  improvement  no-change  inconclusive');
for (const [i, s] of scenarios.entries()) {
  const normal = gaussian(seededRandom(1000 + i));
  const counts = { regression: 0, improvement: 0, 'no-change': 0, inconclusive: 0, 'not-worse': 0 };
  for (let r = 0; r < replicates; r++) {
    const draw = (effect: number) =>
      Array.from({ length: s.k }, () => 43_900 * (1 + effect / 100) * (1 + (s.cvPct / 100) * normal()));
    counts[judgeInstructions(draw(0), draw(s.effectPct), THRESHOLD_PCT).verdict]++;
  }
  const pct = (n: number) => `${((100 * n) / replicates).toFixed(2)}%`.padStart(11);
  console.log(
    `${String(s.k).padEnd(3)} ${s.cvPct.toFixed(1).padStart(4)}  ${s.effectPct.toFixed(1).padStart(7)}  ${pct(counts.regression)}  ${pct(counts.improvement)}  ${pct(counts['no-change'])}  ${pct(counts.inconclusive)}`,
  );
}
