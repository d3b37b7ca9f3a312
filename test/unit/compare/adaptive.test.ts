import { describe, expect, it } from 'vitest';
import {
  adaptiveLook,
  adaptiveRecord,
  lookAtRounds,
  designSequential,
  sequentialDesignFromJson,
} from '../../../src/core/compare/analysis/adaptive.js';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import { alphaSpent, perLookLevels } from '../../../src/core/stats/alpha-spending.js';
import { COLLAPSE_DIP, syntheticRun } from '../../../testkit/synthetic-run.js';

describe('alpha spending', () => {
  it('spends α(t) by the Lan-DeMets O’Brien-Fleming and Pocock-type functions', () => {
    expect(alphaSpent('obrien-fleming', 0.05, 1)).toBe(0.05);
    expect(alphaSpent('obrien-fleming', 0.05, 0.5)).toBeCloseTo(0.005575, 5); // 2 − 2Φ(1.95996/√0.5)
    expect(alphaSpent('pocock', 0.05, 0.5)).toBeCloseTo(0.05 * Math.log(1 + (Math.E - 1) / 2), 12);
    expect(alphaSpent('pocock', 0.05, 0)).toBe(0);
    const levels = perLookLevels('pocock', 0.05, [0.2, 0.5, 1]);
    expect(levels.reduce((a, b) => a + b, 0)).toBeCloseTo(0.05, 12);
    expect(() => perLookLevels('pocock', 0.05, [0.5, 0.5])).toThrow(/must increase/);
  });
});

describe('designSequential', () => {
  it('gives each look the α spent since the previous one; the last look is maxRounds', () => {
    const plan = designSequential({ schedule: [6, 10, 15, 20, 30] });
    expect(plan).toMatchObject({ maxRounds: 30, spending: 'obrien-fleming', schedule: [6, 10, 15, 20, 30] });
    expect(plan.cumulativeAlpha[4]).toBeCloseTo(0.05, 12);
    expect(plan.lookAlpha[0]).toBeLessThan(1e-4);
    // The pass question spends its own α (passLevels, DEFAULT_PASS_ALPHA 0.1): Σ ≤ it, the sizes the
    // signed-rank interval has (k/64 at 6 rounds, k/1024 at 10).
    expect(plan.passAlphaTotal).toBe(0.1);
    expect(plan.passAlpha!.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(0.1 + 1e-12);
    expect(plan.passAlpha![0]).toBe(3 / 64);
    const strict = designSequential({ schedule: [6, 10, 15, 20, 30], passAlpha: 0.05 });
    expect(strict.passAlpha!.slice(0, 2)).toEqual([1 / 64, 25 / 1024]);
    expect(strict.lookAlpha).toEqual(plan.lookAlpha); // the regression question keeps α
    expect(() => designSequential({ passAlpha: 0.5 })).toThrow(/pass alpha must be in \(0, 0.5\), got 0.5/);
    const cut = designSequential({ schedule: [6, 10, 15, 20, 30], maxRounds: 12, spending: 'pocock' });
    expect(cut.schedule).toEqual([6, 10, 12]);
    expect(cut.informationFractions).toEqual([0.5, 10 / 12, 1]);
    expect(JSON.parse(JSON.stringify(cut))).toEqual(cut); // serialisable as is
  });

  it('refuses bad designs, naming the bad value', () => {
    expect(() => designSequential({ schedule: [6, 10, 10] })).toThrow(
      /strictly increasing.*\[6, 10, 10\] \(look 3: 10\)/,
    );
    expect(() => designSequential({ schedule: [] })).toThrow(RangeError);
    expect(() => designSequential({ schedule: [6, 10.5] })).toThrow(/look 2: 10.5/);
    expect(() => designSequential({ schedule: [4, 10] })).toThrow(
      /first look at 4 rounds is below the 6 rounds the signed-rank test needs to reach α 0.05/,
    );
    expect(() => designSequential({ schedule: [4, 10], test: 'mann-whitney' })).not.toThrow();
    expect(() => designSequential({ schedule: [6, 10], maxRounds: 5 })).toThrow(
      /maxRounds .* ≥ the first look \(6 rounds\), got 5/,
    );
    expect(() => designSequential({ schedule: [6], alpha: 1.5 })).toThrow(
      /alpha must be in \(0, 1\), got 1.5/,
    );
    // @ts-expect-error: a bad spending name from untyped input
    expect(() => designSequential({ schedule: [6], spending: 'haybittle' })).toThrow(/got 'haybittle'/);
  });
});

describe('adaptiveLook', () => {
  const plan = designSequential({ schedule: [10, 14, 20], spending: 'pocock' });
  // Cell 1: a strong 10% drop; cell 8: unchanged and quiet; the others: unchanged, noisy.
  const result = syntheticRun({
    seed: 3,
    rounds: 20,
    noise: 0.03,
    effect: (arm, _, clients, round) =>
      arm === 'head' && clients === 1 ? 0.9 : clients === 8 ? 1 + 0.001 * Math.sin(round) : 1,
  });

  it('analyses exactly the rounds of the look and says what to measure next', () => {
    const first = adaptiveLook(result, plan, { look: 1 });
    expect(first.rounds).toBe(10);
    expect(first.comparison.comparisons[0]!.cells.every((c) => (c.pairs ?? 0) <= 10)).toBe(true);
    expect(first.comparison.sequential).toMatchObject({ look: 1, looks: 3, perLookAlpha: plan.lookAlpha[0] });
    const regressed = first.decidedCells.find((d) => d.id === 'tpcb@1');
    expect(regressed).toMatchObject({ verdict: 'regression', look: 1 });
    expect(first.openCells.some((c) => c.clients === 1)).toBe(false);
    expect(first.openCells.length).toBeGreaterThan(0);
    expect(first.stop).toBe(true); // stopOnRegression: the gate's answer cannot change
    const keepGoing = adaptiveLook(result, plan, { look: 1, stopOnRegression: false });
    expect(keepGoing).toMatchObject({ stop: false, nextRounds: 14 });
    expect(keepGoing.reason).toMatch(/undecided at look 1; continue to 14 rounds/);
  });

  it('a regression certified only in an unstable cell (a collapse region) does not stop the run', () => {
    const dip = COLLAPSE_DIP;
    const inDip = syntheticRun({
      seed: 4,
      rounds: 20,
      noise: 0.03,
      level: (_, clients) => dip[clients]!,
      effect: (arm, _, clients) => (arm === 'head' && clients === 32 ? 0.9 : 1),
    });
    const first = adaptiveLook(inDip, plan, { look: 1 });
    expect(first.decidedCells).toContainEqual(
      expect.objectContaining({ id: 'tpcb@32', verdict: 'regression' }),
    );
    expect(first.comparison.comparisons[0]!.unstableCells).toContain('tpcb@32');
    expect(first.openCells.length).toBeGreaterThan(0); // so a stop would have been early
    expect(first.reason).not.toMatch(/regression certified/);
    expect(first).toMatchObject({ stop: false, nextRounds: 14 });
  });

  it('keeps a cell decided at an earlier look frozen with that look’s verdict', () => {
    const last = adaptiveLook(result, plan, { look: 3, stopOnRegression: false });
    const cell1 = last.comparison.comparisons[0]!.cells.find((c) => c.clients === 1)!;
    expect(cell1.pairs).toBe(10); // its statistics are those of look 1
    expect(cell1.alpha).toBe(plan.lookAlpha[0]);
    expect(last.history.map((h) => h.look)).toEqual([1, 2, 3]);
    expect(last.history[0]!.decided).toContainEqual({ id: 'head:tpcb@1', verdict: 'regression' });
    expect(JSON.parse(JSON.stringify(last.history))).toEqual(last.history);
  });

  it('works on what the run loop records: decided cells stop, failed runs leave unpaired rounds', () => {
    const first = adaptiveLook(result, plan, { look: 1, stopOnRegression: false });
    const decided = new Set(first.decidedCells.map((d) => d.id));
    // The run loop measures only open cells after look 1, and one head run of an open cell failed in round 12.
    const open = first.openCells[0]!;
    const recorded = {
      ...result,
      samples: result.samples
        .filter((s) => s.round <= 10 || !decided.has(`${s.workload}@${s.clients}`))
        .map((s) =>
          s.round === 12 && s.clients === open.clients && s.arm === 'head'
            ? { ...s, status: 'failed' as const, metrics: {} }
            : s,
        ),
    };
    const later = adaptiveLook(recorded, plan, { look: 3, stopOnRegression: false });
    const cell1 = later.comparison.comparisons[0]!.cells.find((c) => c.clients === 1)!;
    expect(cell1).toMatchObject({ verdict: 'regression', pairs: 10 });
    const cell2 = later.comparison.comparisons[0]!.cells.find((c) => c.clients === open.clients)!;
    expect(decided.has(cell2.id)).toBe(false); // still open after look 1: it kept being measured
    expect(cell2.test).toBe('signed-rank');
    expect(cell2.notes.map((n) => n.code)).toContain('unpaired-rounds-dropped');
    expect(cell2.pairs).toBeLessThan(later.rounds);
  });

  it('infers the look from the recorded rounds and stops at the budget', () => {
    const at15 = { ...result, samples: result.samples.filter((s) => s.round <= 15) };
    expect(adaptiveLook(at15, plan, { stopOnRegression: false }).look).toBe(2);
    expect(lookAtRounds([10, 14, 20], 9)).toBe(0);
    const early = { ...result, samples: result.samples.filter((s) => s.round <= 5) };
    expect(() => adaptiveLook(early, plan)).toThrow(
      /5 round\(s\) recorded, before the first look at 10 rounds/,
    );
    expect(() => adaptiveLook(result, plan, { look: 4 })).toThrow(/look must be between 1 and 3, got 4/);
  });

  it('round-trips through results.json and drives compareRun', () => {
    const out = adaptiveLook(result, plan, { look: 2, stopOnRegression: false });
    const stored = JSON.parse(JSON.stringify(adaptiveRecord(plan, out)));
    expect(stored.looks).toHaveLength(2);
    const restored = sequentialDesignFromJson(stored.plan);
    expect(restored).toEqual(plan);
    const viaCompare = compareRun(result, { adaptive: { plan: restored, look: 1 } });
    expect(viaCompare.sequential).toMatchObject({ look: 1 });
    expect(viaCompare.verdict).toBe('regression');
    expect(() => sequentialDesignFromJson({ ...stored.plan, spending: 'none' })).toThrow(
      /adaptive.plan.spending is missing or invalid: "none"/,
    );
    expect(() => sequentialDesignFromJson({ ...stored.plan, schedule: [10, 5] })).toThrow(
      /strictly increasing/,
    );
  });

  it('controls Holm across every head arm and cell (one family)', () => {
    const three = syntheticRun({ seed: 9, rounds: 12, arms: ['base', 'a', 'b'], noise: 0.02 });
    const c = compareRun(three);
    expect(c.comparisons.map((a) => a.familySize)).toEqual([16, 16]);
    expect(c.comparisons[0]!.cells[0]!.familySize).toBe(16);
  });
});

describe('the adaptive design by seeded simulation (small replicate counts; bench/adaptive-sim.ts has 1000)', () => {
  const design = designSequential({ schedule: [6, 10, 15, 20, 30] });
  const alarmed = (v: string) => v === 'regression' || v === 'improvement' || v === 'mixed';

  it('keeps the A/A false-alarm rate over all looks and 3 cells at alpha within Monte Carlo error', () => {
    const replications = 100;
    let alarms = 0;
    for (let seed = 1; seed <= replications; seed++) {
      const doc = syntheticRun({ seed: 500 + seed, rounds: 30, noise: 0.03, workloads: { w: [1, 2, 4] } });
      if (alarmed(adaptiveLook(doc, design, { look: 5 }).comparison.verdict)) alarms++;
    }
    // 1000 replicates in the bench give 0.030 for 7 cells; 3 binomial SEs of 5% over 100 is 0.065.
    expect(alarms / replications).toBeLessThanOrEqual(0.05 + 0.065);
  });

  it('catches a planted -6% at 5% noise and stops early on average', () => {
    const replications = 40;
    let caught = 0;
    let rounds = 0;
    for (let seed = 1; seed <= replications; seed++) {
      const doc = syntheticRun({
        seed: 900 + seed,
        rounds: 30,
        noise: 0.05,
        workloads: { w: [1] },
        effect: (arm) => (arm === 'head' ? 0.94 : 1),
      });
      const out = adaptiveLook(doc, design, { look: 5 });
      if (out.comparison.verdict === 'regression') caught++;
      rounds += out.rounds;
    }
    expect(caught / replications).toBeGreaterThanOrEqual(0.85);
    expect(rounds / replications).toBeLessThan(26);
  });
});
