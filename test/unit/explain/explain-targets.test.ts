import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import type { Sample } from '../../../src/core/results/result-types.js';
import type { Workload } from '../../../src/drivers/workload.js';
import type { ExplanationRecord } from '../../../src/core/results/instructions.js';
import { explainTargets } from '../../../src/run/counted/explain-phase.js';
import { explanationSection } from '../../../src/core/report/evidence/explain-section.js';
import { document, sample } from '../../../testkit/synthetic-run.js';

const ROUNDS = 10;
/** Head's effect per workload: w regresses 10%, v improves 10%, u is unchanged; tiny alternating noise. */
const EFFECT: Record<string, number> = { w: 0.9, v: 1.1, u: 1, s: 0.9 };

function run(confirmBlock?: 'confirms' | 'does-not-confirm') {
  const samples: Sample[] = [];
  const block: Sample[] = [];
  const push = (into: Sample[], round: number, effect: (w: string) => number) => {
    for (const workload of Object.keys(EFFECT)) {
      const wobble = 1 + (round % 2 === 0 ? 0.002 : -0.002) * (round % 3);
      into.push(sample({ round, workload, clients: 1, arm: 'base', metrics: { tps: 1000 * wobble } }));
      into.push(
        sample({ round, workload, clients: 1, arm: 'head', metrics: { tps: 1000 * effect(workload) } }),
      );
    }
  };
  for (let r = 1; r <= ROUNDS; r++) push(samples, r, (w) => EFFECT[w]!);
  const doc = document(['base', 'head'], { w: [1], v: [1], u: [1], s: [1] }, ROUNDS, samples);
  if (confirmBlock) {
    for (let r = 1; r <= 6; r++) push(block, r, (w) => (confirmBlock === 'confirms' ? EFFECT[w]! : 1.0));
    doc.confirmation = {
      rounds: 6,
      seed: 1,
      cells: ['w', 's'].map((workload) => ({ head: 'head', workload, clients: 1, metric: 'tps' as const })),
      samples: block.filter((x) => x.workload === 'w' || x.workload === 's'),
    };
  }
  return doc;
}

const workloads = [
  { name: 'w', tool: 'pgbench', clients: [1] },
  { name: 'v', tool: 'pgbench', clients: [1] },
  { name: 'u', tool: 'pgbench', clients: [1] },
  { name: 's', tool: 'sysbench', clients: [1] },
] as unknown as Workload[];

describe('explainTargets', () => {
  it('profiles confirmed regressions and improvements of pgbench workloads, nothing unchanged or sysbench', () => {
    const comparison = compareRun(run('confirms'));
    const verdicts = Object.fromEntries(comparison.comparisons[0]!.cells.map((c) => [c.workload, c.verdict]));
    expect(verdicts).toEqual({ w: 'regression', v: 'improvement', u: 'no-change', s: 'regression' });
    expect(explainTargets(comparison, workloads)).toEqual([
      { head: 'head', workload: 'w', cells: ['w@1'] },
      { head: 'head', workload: 'v', cells: ['v@1'] },
    ]);
  });

  it('leaves an unconfirmed regression alone, and profiles one no block was run for', () => {
    const unconfirmed = compareRun(run('does-not-confirm'));
    expect(unconfirmed.comparisons[0]!.cells.find((c) => c.workload === 'w')!.confirmation!.confirmed).toBe(
      false,
    );
    expect(explainTargets(unconfirmed, workloads).map((t) => t.workload)).toEqual(['v']);
    expect(explainTargets(compareRun(run()), workloads).map((t) => t.workload)).toEqual(['w', 'v']);
  });

  it('does not profile again what the instruction mode already profiled', () => {
    const counted = {
      profiles: [{ workload: 'w', clients: 1, base: 'base', head: 'head', file: 'x', movers: [] }],
    } as unknown as ExplanationRecord;
    expect(explainTargets(compareRun(run('confirms')), workloads, counted).map((t) => t.workload)).toEqual([
      'v',
    ]);
  });
});

describe('explanationSection', () => {
  it('shows the five largest movers per changed workload, the cells, the file and what failed', () => {
    const doc = run();
    const movers = Array.from({ length: 8 }, (_, i) => ({
      fn: `fn_${i}`,
      file: 'x.c',
      baseIrPerTx: 100,
      headIrPerTx: 100 + 1000 / (i + 1),
      deltaIrPerTx: 1000 / (i + 1),
    }));
    doc.explanation = {
      counter: 'cachegrind',
      settings: {},
      wallS: 42,
      samples: [],
      profiles: [
        { workload: 'w', clients: 1, base: 'base', head: 'head', file: 'explain/w.head-vs-base.tsv', movers },
      ],
      failures: [{ workload: 'v', reason: 'valgrind is not installed' }],
      notes: [],
      targets: [
        { head: 'head', workload: 'w', cells: ['w@1'] },
        { head: 'head', workload: 'v', cells: ['v@1'] },
      ],
    };
    const section = explanationSection(doc)!;
    const text = section.body.join('\n');
    expect(section.summary).toBe('Why it changed: CPU profile');
    expect(text).toContain(
      '**w, head vs base** (changed: `w@1`; full profile: `explain/w.head-vs-base.tsv`)',
    );
    expect(text).toContain('| `fn_0` | 100 | 1,100 | +1,000 |');
    expect(text).toContain('`fn_4`');
    expect(text).not.toContain('`fn_5`');
    expect(text).toContain('- v: no profile: valgrind is not installed');
    expect(explanationSection(run())).toBeUndefined();
  });
});
