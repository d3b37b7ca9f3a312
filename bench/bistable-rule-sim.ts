/**
 * The bistable handling of instruction counts (src/core/compare/evidence/instruction-rule.ts, judgeInstructionCell)
 * by seeded simulation through the real rule, against the rule before its exception.
 *
 * The model, per trial (one counted cell, k repetitions per arm, δ = 1 %):
 * - each repetition counts 40,000 instructions per transaction × (1 + true change, head only) ×
 *   (1 + c·N(0,1)), with the per-repetition CV c drawn per trial, uniform in 0.05-0.3 % (base and head
 *   counted on the same machine share it);
 * - bistable layouts: with probability p, independently for every repetition of either arm (each one is a
 *   new server start: JIT, ASLR, a hot structure across a cache line), the count lands +x % higher.
 *
 * Rules, on the same draws:
 * - current: judgeInstructionCell as pgperf runs it. An arm whose repetitions split into two groups
 *   (bistableGapPct) makes the cell reported, not gated, EXCEPT when the verdict is a regression or
 *   improvement whose |Δ| minus the split arms' gaps still reaches δ: that one is gated;
 * - old: the same judgement (judgeInstructions) and the same split (bistableGapPct), the cell ungated
 *   whenever an arm is split, without the exception.
 *
 * Printed per scenario over TRIALS trials: the share gated as a regression (a false alarm where the true
 * change is at most δ, the power beyond it) and the share reported bistable, not gated, for both rules;
 * then, for the zero-change rows, where the current rule's false alarms come from.
 *
 * Run: npx tsx bench/bistable-rule-sim.ts [trials] [cv-min%] [cv-max%]   (defaults 2000, 0.05, 0.3)
 */
import { countedSample } from '../testkit/instruction-record.js';
import {
  judgeInstructionCell,
  judgeInstructions,
  bistableGapPct,
} from '../src/core/compare/evidence/instruction-rule.js';
import type { InstructionSample, InstructionsRecord } from '../src/core/results/instructions.js';
import { seededRandom } from '../src/core/stats/seeded-random.js';
import { gaussian } from '../testkit/synthetic-run.js';

const TRIALS = Number(process.argv[2] ?? 2000);
const THRESHOLD_PCT = 1;
const LEVEL = 40_000;
const CV_PCT = [Number(process.argv[3] ?? 0.05), Number(process.argv[4] ?? 0.3)] as const;
const KS = [3, 5];
const CHANGES_PCT = [0, 0.5, 1, 2, 5, 15];
/** (probability p, jump x %); p = 0 is the unimodal counter. */
const MODES: Array<{ p: number; jumpPct: number }> = [
  { p: 0, jumpPct: 0 },
  { p: 0.2, jumpPct: 1.5 },
  { p: 0.2, jumpPct: 3 },
  { p: 0.4, jumpPct: 1.5 },
  { p: 0.4, jumpPct: 3 },
];
const WORKLOAD = 'select-only';

interface Outcome {
  /** Gated, and the verdict is regression. */
  gatedRegression: boolean;
  /** An arm is bistable and the cell is reported, not gated. */
  bistableUngated: boolean;
}

/** A record holding one cell's counts, as the counting step writes it. */
function record(base: readonly number[], head: readonly number[]): InstructionsRecord {
  const samples: InstructionSample[] = [];
  for (const [arm, values] of [
    ['base', base],
    ['head', head],
  ] as const) {
    values.forEach((perTx, i) => samples.push(countedSample(WORKLOAD, arm, i + 1, perTx)));
  }
  return {
    counter: 'cachegrind',
    settings: {
      [WORKLOAD]: {
        short: 200,
        long: 1200,
        warmup: 200,
        repetitions: base.length,
        thresholdPct: THRESHOLD_PCT,
      },
    },
    wallS: 0,
    samples,
    profiles: [],
    failures: [],
    notes: [],
  };
}

/** The rule as pgperf runs it. */
function current(base: readonly number[], head: readonly number[]): Outcome {
  const { judged, bistable } = judgeInstructionCell(
    record(base, head),
    { workload: WORKLOAD, clients: 1 },
    'base',
    'head',
  );
  return {
    gatedRegression: bistable.length === 0 && judged.verdict === 'regression',
    bistableUngated: bistable.length > 0,
  };
}

/** The rule before the exception: any bistable arm leaves the cell ungated. */
function old(base: readonly number[], head: readonly number[]): Outcome {
  const judged = judgeInstructions(base, head, THRESHOLD_PCT);
  const split = [base, head].some((values) => bistableGapPct(values, THRESHOLD_PCT) !== null);
  return { gatedRegression: !split && judged.verdict === 'regression', bistableUngated: split };
}

interface Row {
  k: number;
  changePct: number;
  p: number;
  jumpPct: number;
  current: { gated: number; bistable: number };
  old: { gated: number; bistable: number };
  /** Current rule's gated regressions by how many repetitions of each arm drew the high layout. */
  gatedBy: Map<string, number>;
}

function simulate(seed: number, k: number, changePct: number, p: number, jumpPct: number): Row {
  const random = seededRandom(seed);
  const normal = gaussian(random);
  const row: Row = {
    k,
    changePct,
    p,
    jumpPct,
    current: { gated: 0, bistable: 0 },
    old: { gated: 0, bistable: 0 },
    gatedBy: new Map(),
  };
  for (let t = 0; t < TRIALS; t++) {
    const cv = (CV_PCT[0] + (CV_PCT[1] - CV_PCT[0]) * random()) / 100;
    let highs = { base: 0, head: 0 };
    const draw = (arm: 'base' | 'head') =>
      Array.from({ length: k }, () => {
        const high = random() < p;
        if (high) highs = { ...highs, [arm]: highs[arm] + 1 };
        const layout = high ? 1 + jumpPct / 100 : 1;
        const change = arm === 'head' ? 1 + changePct / 100 : 1;
        return LEVEL * change * layout * (1 + cv * normal());
      });
    const base = draw('base');
    const head = draw('head');
    const now = current(base, head);
    const before = old(base, head);
    if (now.gatedRegression) {
      row.current.gated++;
      const key = `base ${highs.base}/${k} high, head ${highs.head}/${k} high`;
      row.gatedBy.set(key, (row.gatedBy.get(key) ?? 0) + 1);
    }
    if (now.bistableUngated) row.current.bistable++;
    if (before.gatedRegression) row.old.gated++;
    if (before.bistableUngated) row.old.bistable++;
  }
  return row;
}

const started = Date.now();
const rows: Row[] = [];
let seed = 1;
for (const k of KS) {
  for (const changePct of CHANGES_PCT) {
    for (const { p, jumpPct } of MODES) rows.push(simulate(7919 * seed++, k, changePct, p, jumpPct));
  }
}

const pct = (n: number) => `${((100 * n) / TRIALS).toFixed(1)}%`;
console.log(
  `bistable-rule simulation: ${TRIALS} seeded trials per row, δ ${THRESHOLD_PCT}%, ${LEVEL} instructions/tx, ` +
    `per-repetition CV ${CV_PCT[0]}-${CV_PCT[1]}% (uniform per trial); a repetition lands +jump% higher with ` +
    `probability p; current (old) rule\n`,
);
console.log(
  '| k | true change | p | jump | gated regression means | gated regression, current (old) | bistable, not gated, current (old) |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.k} | ${r.changePct === 0 ? '0' : `+${r.changePct}%`} | ${r.p} | ${r.p === 0 ? '-' : `${r.jumpPct}%`} | ` +
      `${r.changePct < THRESHOLD_PCT ? 'false alarm' : r.changePct === THRESHOLD_PCT ? 'false alarm (δ itself)' : 'power'} | ${pct(r.current.gated)} (${pct(r.old.gated)}) | ` +
      `${pct(r.current.bistable)} (${pct(r.old.bistable)}) |`,
  );
}

console.log('\nzero true change: the current rule’s gated regressions by the layouts each arm drew\n');
console.log('| k | p | jump | layouts drawn | share of trials |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows.filter((x) => x.changePct === 0 && x.gatedBy.size > 0)) {
  for (const [key, n] of [...r.gatedBy].sort((a, b) => b[1] - a[1])) {
    console.log(`| ${r.k} | ${r.p} | ${r.p === 0 ? '-' : `${r.jumpPct}%`} | ${key} | ${pct(n)} |`);
  }
}
console.log(`\n${rows.length} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
