/**
 * The plans in the reports: "plan changed" with both plans (comment) or one line (terminal) per changed
 * statement, one line when none changed, the statements whose cost per call moved most, untrusted names
 * escaped; and the record read back through the one reader of results documents. The plans are the ones a
 * real run took (PostgreSQL 15, select-only, head with enable_indexscan and enable_bitmapscan off).
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { planReport, planSection, planTextLines } from '../../../src/core/report/evidence/plan-section.js';
import type { PlansRecord } from '../../../src/core/results/plans.js';
import type { RunResult, Sample } from '../../../src/core/results/result-types.js';
import { validateResults } from '../../../src/store/read-results.js';
import { document, sample } from '../../../testkit/synthetic-run.js';
import { INDEX_PLAN, SELECT, SEQ_PLAN, plansRecord } from '../../../testkit/plans-record.js';

const record = (headPlan: string, arms = ['base', 'head']): PlansRecord => plansRecord('so', headPlan, arms);

function run(plans: PlansRecord): RunResult {
  const samples: Sample[] = [];
  for (let round = 1; round <= 3; round++) {
    for (const arm of plans.arms) {
      samples.push(sample({ round, workload: 'so', clients: 1, arm, metrics: { tps: 1000 + round } }));
    }
  }
  return { ...document(plans.arms, { so: [1] }, 3, samples), plans };
}

describe('planReport', () => {
  it('names the changed statement with both plans and where they first differ', () => {
    const report = planReport(record(SEQ_PLAN));
    expect(report.statements).toBe(1);
    expect(report.changed).toEqual([
      {
        workload: 'so',
        base: 'base',
        head: 'head',
        statement: SELECT,
        basePlan: INDEX_PLAN,
        headPlan: SEQ_PLAN,
        firstDifference: {
          base: 'Index Scan using pgbench_accounts_pkey on pgbench_accounts',
          head: 'Seq Scan on pgbench_accounts',
        },
      },
    ]);
    expect(report.movers[0]).toMatchObject({
      statement: SELECT,
      base: { callsPerTx: 1, blocksPerCall: 3 },
      headCost: { callsPerTx: 1, blocksPerCall: 1640 },
      blocksDeltaPct: expect.closeTo(54566.7, 1),
    });
  });

  it('names a statement whose planner memory moved beyond its floor, and leaves a few kB alone', () => {
    const withMemory = (headBytes: number) => {
      const r = record(INDEX_PLAN);
      for (const p of r.plans) {
        p.plannerMemory = { usedBytes: 1000, allocatedBytes: p.arm === 'base' ? 16_384 : headBytes };
      }
      return planReport(r).notes.filter((n) => n.startsWith('planner memory'));
    };
    // As EXPLAIN (MEMORY) reports it on PostgreSQL 17+: a planner that keeps three times the memory.
    expect(withMemory(49_152)).toEqual([
      `planner memory moved: ${SELECT} (so: 16 kB -> 48 kB allocated (+200%))`,
    ]);
    expect(withMemory(16_384 + 4096)).toEqual([]); // +25 % but 4 kB: below the bytes floor
    expect(withMemory(16_384)).toEqual([]);
  });

  it('ranks the movers by blocks per call first, then time', () => {
    const r = record(INDEX_PLAN);
    const other = 'SELECT 1';
    r.statements.push({ workload: 'so', statement: other, explained: other });
    r.stats = [
      { ...r.stats[0]!, totalTimeMs: 1, sharedBlksHit: 100, sharedBlksRead: 0 },
      { ...r.stats[1]!, totalTimeMs: 10, sharedBlksHit: 100, sharedBlksRead: 0 },
      { ...r.stats[0]!, statement: other, totalTimeMs: 1, sharedBlksHit: 100, sharedBlksRead: 0 },
      { ...r.stats[1]!, statement: other, totalTimeMs: 1.1, sharedBlksHit: 110, sharedBlksRead: 0 },
    ];
    expect(planReport(r).movers.map((m) => m.statement)).toEqual([other, SELECT]);
  });

  it('says what could not be taken', () => {
    const r = record(SEQ_PLAN);
    r.plans[1] = {
      workload: 'so',
      arm: 'head',
      statement: SELECT,
      error: 'ERROR:  relation "x" does not exist',
    };
    r.failures.push({ workload: 'tp', arm: 'head', reason: 'pgbench -t 500 failed' });
    const report = planReport(r);
    expect(report.changed).toEqual([]);
    expect(report.notes).toEqual([
      `so: no plan on head for ${SELECT}: ERROR:  relation "x" does not exist`,
      'tp on head: not taken: pgbench -t 500 failed',
    ]);
  });
});

describe('the terminal', () => {
  it('one line per changed statement', () => {
    const lines = planTextLines(record(SEQ_PLAN));
    expect(lines).toContain(
      `plan changed: ${SELECT} (so: Index Scan using pgbench_accounts_pkey on pgbench_accounts -> Seq Scan on pgbench_accounts)`,
    );
    expect(lines.some((l) => l.startsWith('plans:'))).toBe(false);
    expect(lines).toContain(
      `    ${SELECT}: 8.7 -> 9,793.0 µs (+113053.5%), 3.0 -> 1640.0 blocks (+54566.7%)`,
    );
  });

  it('one line when none changed', () => {
    const lines = planTextLines(record(INDEX_PLAN));
    expect(lines.filter((l) => /plan/.test(l))).toEqual(['plans: 1 statement, none changed']);
  });

  it('names the head when there are several', () => {
    const lines = planTextLines(record(SEQ_PLAN, ['base', 'h1', 'h2']));
    expect(lines.filter((l) => l.startsWith('plan changed:'))).toEqual([
      `plan changed: ${SELECT} (so, h1 vs base: Index Scan using pgbench_accounts_pkey on pgbench_accounts -> Seq Scan on pgbench_accounts)`,
      `plan changed: ${SELECT} (so, h2 vs base: Index Scan using pgbench_accounts_pkey on pgbench_accounts -> Seq Scan on pgbench_accounts)`,
    ]);
  });

  it('is part of the comparison text, through the analysis of the document', () => {
    const doc = run(record(SEQ_PLAN));
    const c = analyse(doc);
    const text = renderComparisonText(c, reportInputOf(doc, c).decision);
    expect(text).toMatch(/^plan changed: SELECT abalance FROM pgbench_accounts WHERE aid = :aid \(so: /m);
    const unchanged = run(record(INDEX_PLAN));
    const u = analyse(unchanged);
    expect(renderComparisonText(u, reportInputOf(unchanged, u).decision)).toMatch(
      /^plans: 1 statement, none changed$/m,
    );
    // A run without plans says nothing of them.
    const none = { ...unchanged };
    delete none.plans;
    const n = analyse(none);
    expect(renderComparisonText(n, reportInputOf(none, n).decision)).not.toMatch(/^plans?[: ]/m);
  });
});

describe('the comment', () => {
  it('a collapsed section with both plans of the changed statement', () => {
    const doc = run(record(SEQ_PLAN));
    const c = analyse(doc);
    const md = renderMarkdownReport({ ...reportInputOf(doc, c), commentId: 'default' });
    expect(md).toContain('<details><summary>Query plans: plan changed in 1 of 1 statement</summary>');
    expect(md).toContain(`**plan changed: \`${SELECT}\`** (so)`);
    expect(md).toContain(
      '<pre>Index Scan using pgbench_accounts_pkey on pgbench_accounts\n  Index Cond: (aid = 1)</pre>',
    );
    expect(md).toContain('<pre>Seq Scan on pgbench_accounts\n  Filter: (aid = 1)</pre>');
    expect(md).toContain(`| \`${SELECT}\` | 1.00 | 8.7 → 9,793.0 | +113053.5% | 3.0 → 1640.0 | +54566.7% |`);
  });

  it('one summary line when none changed', () => {
    expect(planSection(record(INDEX_PLAN))?.summary).toBe('Query plans: 1 statement, none changed');
    expect(planSection(undefined)).toBeUndefined();
  });

  it('escapes what workloads, scripts and servers wrote', () => {
    const hostile = "SELECT '</pre><img src=x>' FROM t WHERE a = @admin | b";
    const r = record(SEQ_PLAN);
    r.statements = [{ workload: 'w|<b>', statement: hostile, explained: hostile }];
    r.plans = [
      { workload: 'w|<b>', arm: 'base', statement: hostile, plan: 'Result\n  Output: </pre><script>' },
      { workload: 'w|<b>', arm: 'head', statement: hostile, plan: 'Seq Scan on t @someone' },
    ];
    r.stats = [];
    const body = planSection(r)!.body.join('\n');
    expect(body).not.toContain('</pre><script>');
    expect(body).toContain('<pre>Result\n  Output: &lt;/pre&gt;&lt;script&gt;</pre>');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('w|<b>');
    expect(body).not.toMatch(/(?<!&#64;&#8205;)@admin/);
  });
});

describe('results.json', () => {
  it('the record is read back without a warning, and a wrong one is refused naming the field', () => {
    const doc = run(record(SEQ_PLAN));
    const warnings: string[] = [];
    const read = validateResults(JSON.parse(JSON.stringify(doc)), 'results.json', {
      warn: (m) => warnings.push(m),
    });
    expect(warnings).toEqual([]);
    expect(read.plans).toEqual(doc.plans);
    const bad = JSON.parse(JSON.stringify(doc)) as { plans: { stats: Array<{ calls: unknown }> } };
    bad.plans.stats[0]!.calls = 'many';
    expect(() => validateResults(bad, 'results.json')).toThrow(/plans\.stats\[0\]\.calls/);
  });
});
