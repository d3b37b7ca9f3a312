/**
 * Changed code not executed, no rounds (#38 item 3): a workload whose counted runs executed none of the
 * functions a head changed, when the compiled-code comparison lists every difference as such functions and
 * the settings are base's, is decided "no change (changed code not executed)" with no timed sample, said
 * alike by the decision, the terminal, the comment and the mail. A workload that ran one of them, or a head
 * with anything else different, or counts that moved or failed, is measured as before.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import {
  changedCodeNote,
  listsEveryDifference,
  untimedWorkloadsOf,
  unexecutedChangedCodeOf,
} from '../../../src/core/compare/analysis/unexecuted-code.js';
import type { ChangedCodeRun, InstructionsRecord } from '../../../src/core/results/instructions.js';
import type { CompiledCodeComparison, RunResult } from '../../../src/core/results/result-types.js';
import { document, syntheticRun } from '../../../testkit/synthetic-run.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { worthKeeping } from '../../../src/flows/compare/pipeline/archive-sink.js';
import { adaptiveLook, designSequential } from '../../../src/core/compare/analysis/adaptive.js';

/** One function added (never called), the only difference: as compiled-code.ts reports such a head. */
const ADDED: CompiledCodeComparison = {
  head: 'head',
  identical: false,
  files: 1234,
  differingFiles: ['bin/postgres'],
  differingCount: 1,
  serverFunctions: {
    changed: ['pgperf_fixture_variant', 'int4pl', 'int4mi'],
    changedCount: 3,
    total: 23456,
    immediatesOnly: ['int4pl', 'int4mi'],
    immediatesOnlyCount: 2,
    movedOnlyCount: 12000,
    all: ['pgperf_fixture_variant', 'int4pl', 'int4mi'],
    method: 'disassembly',
  },
};

/** The counts of `workloads` (no change, tight), each with which of the changed functions ran. */
function counted(runs: Array<{ workload: string; executed: string[] }>): InstructionsRecord {
  const records = runs.map((r, i) =>
    instructionRecord({ workload: r.workload, seed: 11 + i, effect: 0, cv: 0.001 }),
  );
  return {
    ...records[0]!,
    settings: Object.assign({}, ...records.map((r) => r.settings)) as InstructionsRecord['settings'],
    samples: records.flatMap((r) => r.samples),
    profiles: [],
    changedCode: runs.map((r): ChangedCodeRun => ({
      workload: r.workload,
      head: 'head',
      changedCount: 3,
      executed: r.executed,
      executedCount: r.executed.length,
    })),
  };
}

/** A complete run with no timed sample, as the pipeline writes one whose every workload was skipped. */
function untimed(
  code: CompiledCodeComparison,
  record: InstructionsRecord,
  workloads: Record<string, number[]> = { 'select-only': [1] },
): RunResult {
  return { ...document(['base', 'head'], workloads, 0, []), compiledCode: [code], instructions: record };
}

describe('changed code not executed', () => {
  it('decides every cell of the workload no change with no timed round, said alike on every surface', () => {
    const result = untimed(ADDED, counted([{ workload: 'select-only', executed: [] }]));
    expect(untimedWorkloadsOf(result)).toEqual(['select-only']);
    const comparison = analyse(result);
    const decision = decideRun(result, comparison);
    expect(decision).toMatchObject({ outcome: 'passed', exitCode: 0, verdict: 'no-change' });
    expect(decision.status.state).toBe('success');
    expect(decision.status.description).toBe(
      'Passed: no change in 2 cells (changed code not executed, not measured)',
    );
    // The timed cell and the counted one (both at the 1 client counted), each decided by the code that did not run.
    expect(decision.cells.map((c) => [c.id, c.metric, c.verdict, c.evidence]).sort()).toEqual([
      ['select-only@1', 'instructions', 'no-change', 'changed code not executed'],
      ['select-only@1', 'tps', 'no-change', 'changed code not executed'],
    ]);
    const message =
      'none of the 3 changed functions (pgperf_fixture_variant; only in immediates, e.g. __LINE__: int4pl, int4mi) ' +
      'ran in the counted runs; code placement can still move timings';
    expect(decision.headline).toEqual({
      lead: 'No change in 2 cells (changed code not executed, not measured)',
      detail: message,
    });
    const cell = comparison.comparisons[0]!.cells[0]!;
    expect(cell.reasons).toEqual([{ code: 'changed-code-not-executed', message }]);
    expect(comparison.warnings).toEqual([]);

    const text = renderComparisonText(comparison, decision);
    expect(text.split('\n')[0]).toBe(
      `PASSED: No change in 2 cells (changed code not executed, not measured): ${message}`,
    );
    // The compiled-code line names the functions and says which changed only in immediates.
    expect(text).toContain(
      'in bin/postgres 1 function changed: pgperf_fixture_variant; 2 functions changed only in immediates (e.g. __LINE__): int4pl, int4mi (12,000 others only moved)',
    );
    expect(text).toMatch(/changed code not executed, not measured/);
    const md = renderMarkdownReport({ ...reportInputOf(result, comparison, { decision }), commentId: 'x' });
    expect(md).toContain('changed code not executed, not measured');
    expect(md).toContain('code placement can still move timings');
    // Decided without timed rounds, and kept in the store like every answer.
    expect(worthKeeping(result)).toBe(true);
  });

  it('a single changed function is named as such', () => {
    const one: CompiledCodeComparison = {
      ...ADDED,
      serverFunctions: {
        ...ADDED.serverFunctions!,
        changed: ['pgperf_fixture_variant'],
        changedCount: 1,
        immediatesOnly: [],
        immediatesOnlyCount: 0,
        all: ['pgperf_fixture_variant'],
      },
    };
    const record = counted([{ workload: 'select-only', executed: [] }]);
    record.changedCode![0]!.changedCount = 1;
    const decision = decideRun(untimed(one, record), analyse(untimed(one, record)));
    expect(decision.headline.detail).toBe(
      'the changed function (pgperf_fixture_variant) did not run in the counted runs; code placement can still move timings',
    );
  });

  it('a workload that ran a changed function is measured and judged on its rounds, as before', () => {
    const measured = syntheticRun({ seed: 3, rounds: 2, workloads: { 'select-only': [1] } });
    const result: RunResult = {
      ...measured,
      compiledCode: [ADDED],
      instructions: counted([{ workload: 'select-only', executed: ['int4pl'] }]),
    };
    expect(untimedWorkloadsOf(result)).toEqual([]);
    const decision = decideRun(result, analyse(result));
    expect(decision.cells.find((c) => c.metric === 'tps')!.evidence).toMatch(/TPS, 2 rounds$/);
    expect(decision.cells.some((c) => c.evidence === 'changed code not executed')).toBe(false);
    expect(
      changedCodeNote(result.instructions!.changedCode![0]!, ADDED.serverFunctions!.immediatesOnly!),
    ).toBe(
      'select-only: 1 of the 3 functions whose code head changed ran in its counted runs: int4pl; each changed only in immediates, e.g. __LINE__',
    );
  });

  it('only some workloads untimed: those are decided, the others measured', () => {
    const measured = syntheticRun({ seed: 5, rounds: 3, workloads: { 'tpcb-like': [1] } });
    const record = counted([
      { workload: 'select-only', executed: [] },
      { workload: 'tpcb-like', executed: ['int4pl'] },
    ]);
    const plan = document(['base', 'head'], { 'select-only': [1], 'tpcb-like': [1] }, 3, []);
    const result: RunResult = {
      ...measured,
      workloads: plan.workloads,
      plan: plan.plan,
      compiledCode: [ADDED],
      instructions: record,
    };
    expect(untimedWorkloadsOf(result)).toEqual(['select-only']);
    const decision = decideRun(result, analyse(result));
    const evidence = (w: string, metric: string) =>
      decision.cells.find((c) => c.workload === w && c.metric === metric)!.evidence;
    expect(evidence('select-only', 'tps')).toBe('changed code not executed');
    expect(evidence('tpcb-like', 'tps')).toMatch(/TPS, 3 rounds$/);
    expect(evidence('tpcb-like', 'instructions')).toBe('instruction counts, 3 repetitions');
    expect(decision.outcome).not.toBe('incomplete');
    // The untimed workload's missing runs are by design: no warning names them.
    expect(analyse(result).warnings.join('\n')).not.toMatch(/select-only/);
  });

  it('an adaptive look never keeps an untimed workload open: a run whose timed cells are decided stops', () => {
    // tpcb-like regressed 20% in every round: decided at the first look; select-only has no run by design.
    const measured = syntheticRun({
      seed: 9,
      rounds: 6,
      workloads: { 'tpcb-like': [1] },
      effect: (arm) => (arm === 'head' ? 0.8 : 1),
    });
    const plan = document(['base', 'head'], { 'select-only': [1], 'tpcb-like': [1] }, 6, []);
    const result: RunResult = { ...measured, workloads: plan.workloads, plan: plan.plan };
    const design = designSequential({ schedule: [6, 10] });
    const stopsWith = (untimed?: string[]) =>
      adaptiveLook(result, design, { look: 1, stopOnRegression: false, ...(untimed ? { untimed } : {}) });
    expect(stopsWith().stop).toBe(false); // select-only@1 would stay open for ever
    const look = stopsWith(['select-only']);
    expect(look.openCells).toEqual([]);
    expect(look.stop).toBe(true);
    expect(look.reason).toMatch(/^every cell decided at look 1/);
  });

  it.each<[string, (r: RunResult) => void]>([
    [
      'another file differs too',
      (r) => {
        r.compiledCode = [
          { ...ADDED, differingFiles: ['bin/postgres', 'lib/postgresql/plpgsql.so'], differingCount: 2 },
        ];
      },
    ],
    [
      'the server binary differs only outside its functions (data)',
      (r) => {
        r.compiledCode = [
          {
            ...ADDED,
            serverFunctions: {
              ...ADDED.serverFunctions!,
              changed: [],
              changedCount: 0,
              all: [],
              immediatesOnly: [],
            },
          },
        ];
      },
    ],
    [
      'the list of changed functions was cut',
      (r) => {
        const { all: _all, ...cut } = ADDED.serverFunctions!;
        r.compiledCode = [{ ...ADDED, serverFunctions: cut }];
      },
    ],
    [
      "head's settings differ",
      (r) => {
        r.arms[1]!.settingOverrides = { jit: 'off' };
      },
    ],
    [
      'the workload could not be counted',
      (r) => {
        r.instructions!.failures.push({ workload: 'select-only', arm: 'head', reason: 'took too long' });
      },
    ],
    [
      'no per-function profile says what ran (the CPU counter)',
      (r) => {
        delete r.instructions!.changedCode;
      },
    ],
    [
      'the counts moved beyond their threshold (the work changed after all)',
      (r) => {
        const record = instructionRecord({ seed: 2, effect: 0.05, cv: 0.001 });
        r.instructions = { ...record, changedCode: r.instructions!.changedCode! };
      },
    ],
  ])('not applied (measured) when %s', (_why, spoil) => {
    const result = untimed(ADDED, counted([{ workload: 'select-only', executed: [] }]));
    spoil(result);
    expect(unexecutedChangedCodeOf(result)).toEqual([]);
    expect(untimedWorkloadsOf(result)).toEqual([]);
    const decision = decideRun(result, analyse(result));
    expect(decision.cells.some((c) => c.evidence === 'changed code not executed')).toBe(false);
  });

  it('bistable counts (an arm split in two groups: layout) do not stop the rule, and the cell is decided', () => {
    const record = counted([{ workload: 'select-only', executed: [] }]);
    // Head's repetitions split 3% apart, both groups above base: separated, beyond 1%, yet bistable.
    const head = [45_200, 45_210, 46_560];
    let i = 0;
    record.samples = record.samples.map((s) => {
      if (s.arm !== 'head') return s;
      const perTx = head[i++]!;
      return { ...s, perTx, shortInstructions: 10e6 + 200 * perTx, longInstructions: 10e6 + 1200 * perTx };
    });
    const result = untimed(ADDED, record);
    const counts = analyse({ ...result, compiledCode: [{ ...ADDED, differingCount: 2 }] });
    const countedCell = counts.comparisons[0]!.otherMetricCells[0]!;
    expect(countedCell).toMatchObject({ verdict: 'regression', unstable: expect.anything() });
    expect(untimedWorkloadsOf(result)).toEqual(['select-only']);
    const decision = decideRun(result, analyse(result));
    expect(decision.counts.unstable).toBe(0);
    expect(decision.cells.every((c) => c.evidence === 'changed code not executed')).toBe(true);
  });

  it('not applied (measured) at client counts the counted runs did not have: code only concurrency runs', () => {
    // An LWLock's wait queue or a spin delay never runs at 1 client: the counts cannot vouch for 8 clients.
    const result = untimed(ADDED, counted([{ workload: 'select-only', executed: [] }]), {
      'select-only': [1, 8],
    });
    expect(unexecutedChangedCodeOf(result)).toEqual([]);
    expect(untimedWorkloadsOf(result)).toEqual([]);
  });

  it('a head measured anyway (another head ran its changed code) is judged on its rounds', () => {
    const measured = syntheticRun({
      seed: 7,
      rounds: 3,
      arms: ['base', 'head', 'other'],
      workloads: { w: [1] },
    });
    const record = counted([{ workload: 'w', executed: [] }]);
    record.samples.push(
      ...record.samples.filter((s) => s.arm === 'head').map((s) => ({ ...s, arm: 'other' })),
    );
    record.changedCode!.push({
      workload: 'w',
      head: 'other',
      changedCount: 3,
      executed: ['int4pl'],
      executedCount: 1,
    });
    const result: RunResult = {
      ...measured,
      compiledCode: [ADDED, { ...ADDED, head: 'other' }],
      instructions: record,
    };
    // 'head' alone would be untimed; 'other' ran its changed code, so the workload was timed for both.
    expect(unexecutedChangedCodeOf(result).map((u) => u.head)).toEqual(['head']);
    expect(untimedWorkloadsOf(result)).toEqual([]);
    const decision = decideRun(result, analyse(result));
    const timed = decision.cells.filter((c) => c.metric === 'tps');
    expect(timed.map((c) => c.head).sort()).toEqual(['head', 'other']);
    for (const c of timed) expect(c.evidence).toMatch(/TPS, 3 rounds$/);
  });

  it('lists every difference only for a server binary whose changed functions are all named', () => {
    expect(listsEveryDifference(ADDED)).toBe(true);
    expect(listsEveryDifference({ ...ADDED, unknown: 'prefixes differ' })).toBe(false);
    expect(
      listsEveryDifference({
        head: 'head',
        identical: true,
        files: 3,
        differingFiles: [],
        differingCount: 0,
      }),
    ).toBe(false);
  });
});
