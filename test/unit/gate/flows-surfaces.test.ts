/**
 * One decision shape for every flow, said alike on every surface: a table over the flows (compare,
 * consolidate, shard, nightly, bisect, calibrate) x their outcomes x fail-on, each decision rendered by the
 * CLI (its exit code and stderr line) and by the Action's one gate (outputs, decision.json, the step's
 * failure). The step fails exactly when the CLI's exit code is 1 or 3, and both say the same outcome.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GateDecision } from '../../../src/core/compare/decision/flow-decision.js';
import { STATUS_DESCRIPTION_MAX } from '../../../src/core/compare/decision/flow-decision.js';
import { decide } from '../../../src/core/compare/decision/decision.js';
import { FAIL_ON, type FailOn } from '../../../src/core/compare/decision/policy.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun, decideShard } from '../../../src/flows/compare/pipeline/decide-run.js';
import { nightlyDecision, type NightlyOutcome } from '../../../src/flows/nightly/nightly-flow.js';
import { bisectDecision } from '../../../src/flows/bisect/bisect-gate.js';
import type { BisectOutcome } from '../../../src/core/history/bisect-report.js';
import { calibrationDecision, calibrationOf } from '../../../src/flows/calibrate/calibrate.js';
import { publishGate } from '../../../src/adapters/action/gate.js';
import { reportGate } from '../../../src/adapters/cli/report-gate.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

/** A 10-round comparison at 1% noise, head's TPS times `effect`, with the document's status. */
function run(effect: number, status: RunResult['status'] = 'complete'): RunResult {
  const r = syntheticRun({
    seed: 4,
    rounds: 10,
    workloads: { ro: [1] },
    effect: (arm) => (arm === 'head' ? effect : 1),
  });
  return { ...r, status, ...(status === 'complete' ? {} : { stopReason: 'interrupted (SIGINT)' }) };
}
const aa = (status: RunResult['status'] = 'complete'): RunResult => {
  const r = run(1, status);
  return { ...r, calibration: true };
};

const commit = (n: number) => ({ sha: String(n).repeat(40).slice(0, 40), subject: `commit ${n}` });
const bisects: Record<string, BisectOutcome> = {
  found: { kind: 'found', firstBad: commit(3), lastGood: commit(2) },
  'not reproduced': {
    kind: 'not-reproduced',
    judgement: {
      verdict: 'no-change',
      deltaPct: 0.1,
      ci95: null,
      tries: [],
      build: { cacheHit: true, seconds: 0, installDir: '/x' },
    },
  },
  undecided: {
    kind: 'undecided',
    lastGood: commit(1),
    candidates: [commit(2), commit(3)],
    undecided: commit(2),
    interrupted: false,
  },
  interrupted: {
    kind: 'undecided',
    lastGood: commit(1),
    candidates: [commit(2), commit(3)],
    undecided: commit(2),
    interrupted: true,
  },
};

/** Nightly outcomes with only the fields the gate reads. */
function night(fields: Partial<NightlyOutcome>): NightlyOutcome {
  return {
    run: {} as NightlyOutcome['run'],
    source: {},
    undecided: [],
    analysis: { series: [], runs: 30 } as unknown as NightlyOutcome['analysis'],
    judgement: { verdict: 'no-change', events: [], regressed: [], improved: [] } as never,
    ...fields,
  };
}
const regressed = {
  workload: 'ro',
  regressed: [
    {
      series: { id: 'fp/ro@8/tps', key: { metric: 'tps', clients: 8 } },
      changePoint: { relativeChange: -0.12 },
    },
  ],
};

const flows: Array<{ flow: string; name: string; decide: (failOn: FailOn) => GateDecision }> = [
  { flow: 'compare', name: 'no change', decide: (f) => decideRun(run(1), analyse(run(1)), f) },
  { flow: 'compare', name: 'regression', decide: (f) => decideRun(run(0.9), analyse(run(0.9)), f) },
  { flow: 'compare', name: 'undecided', decide: (f) => decideRun(run(0.985), analyse(run(0.985)), f) },
  {
    flow: 'compare',
    name: 'interrupted',
    decide: (f) => decideRun(run(1, 'interrupted'), analyse(run(1, 'interrupted')), f),
  },
  {
    flow: 'consolidate',
    name: 'two classes, one regressed',
    decide: (f) =>
      decide(
        [
          { name: 'a', comparison: analyse(run(1)) },
          { name: 'b', comparison: analyse(run(0.9)) },
        ],
        { failOn: f, workloads: {} },
      ),
  },
  { flow: 'shard', name: 'complete', decide: (f) => decideShard(run(0.9), analyse(run(0.9)), f) },
  {
    flow: 'shard',
    name: 'interrupted',
    decide: (f) => decideShard(run(1, 'interrupted'), analyse(run(1, 'interrupted')), f),
  },
  { flow: 'nightly', name: 'quiet', decide: (f) => nightlyDecision(night({}), f) },
  {
    flow: 'nightly',
    name: 'open regression',
    decide: (f) =>
      nightlyDecision(
        night({
          judgement: { verdict: 'regression', events: [regressed], regressed: [], improved: [] } as never,
        }),
        f,
      ),
  },
  {
    flow: 'nightly',
    name: 'too short',
    decide: (f) =>
      nightlyDecision(night({ undecided: [{ series: { id: 'fp/new@1/tps' }, segments: [] }] as never }), f),
  },
  {
    flow: 'nightly',
    name: 'not saved',
    decide: (f) => nightlyDecision(night({ notSaved: 'disk full' }), f),
  },
  ...Object.entries(bisects).map(([name, o]) => ({
    flow: 'bisect',
    name,
    decide: (f: FailOn) => bisectDecision(o, f),
  })),
  {
    flow: 'calibrate',
    name: 'complete',
    decide: (f) => calibrationDecision(aa(), calibrationOf(aa(), analyse(aa())), f),
  },
  {
    flow: 'calibrate',
    name: 'interrupted',
    decide: (f) =>
      calibrationDecision(aa('interrupted'), calibrationOf(aa('interrupted'), analyse(aa('interrupted'))), f),
  },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-gate-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('every flow decides in one shape, and the CLI and the Action say the same', () => {
  for (const { flow, name, decide: make } of flows) {
    for (const failOn of FAIL_ON) {
      it(`${flow}: ${name}, fail-on ${failOn}`, async () => {
        const decision = make(failOn);
        expect(decision.flow).toBe(flow);
        expect(decision.failOn).toBe(failOn);
        expect(decision.headline.lead).not.toBe('');
        expect(decision.status.description.length).toBeLessThanOrEqual(STATUS_DESCRIPTION_MAX);
        expect(decision.exitCode).toBe(
          { passed: 0, pending: 0, failed: 1, incomplete: failOn === 'never' ? 0 : 3 }[decision.outcome],
        );
        if (failOn === 'never') expect(decision.exitCode).toBe(0);

        // The CLI: the decision's exit code, and an error line exactly when the gate fails.
        const lines: string[] = [];
        const logger = {
          info: (m: string) => lines.push(`info ${m}`),
          warn: (m: string) => lines.push(`warn ${m}`),
          error: (m: string) => lines.push(`error ${m}`),
          debug: () => {},
          group: <T>(_: string, fn: () => Promise<T>) => fn(),
        };
        reportGate(decision, logger);
        expect(lines[0]).toContain(
          `info ${flow}: ${decision.outcome.toUpperCase()}: ${decision.headline.lead}`,
        );
        expect(lines.slice(1)).toEqual(decision.exitCode === 0 ? [] : [`error ${decision.failure}`]);

        // The Action: the same outcome and verdict in the outputs and decision.json, the step failed exactly
        // when the CLI exits 1 or 3.
        const outputs = new Map<string, string>();
        const io = {
          setOutput: (k: string, v: string) => void outputs.set(k, v),
          writeSummary: async () => {},
        };
        const sub = path.join(dir, `${flow}-${name}-${failOn}`.replace(/\W+/g, '-'));
        const { mkdir } = await import('node:fs/promises');
        await mkdir(sub, { recursive: true });
        const stepped = await publishGate(
          io,
          decision,
          { dir: sub, resultsFile: 'r', reportFile: 'm' },
          () => {},
        );
        expect(outputs.get('verdict')).toBe(decision.verdict);
        expect(outputs.get('outcome')).toBe(decision.outcome);
        expect(JSON.parse(await readFile(outputs.get('decision-json')!, 'utf8'))).toEqual(
          JSON.parse(JSON.stringify(decision)),
        );
        expect(stepped.verdict).toBe(decision.verdict);
        expect(stepped.failure !== undefined).toBe(decision.exitCode !== 0);
      });
    }
  }

  it('covers every outcome somewhere in the table', () => {
    const outcomes = new Set(flows.flatMap((f) => FAIL_ON.map((o) => f.decide(o).outcome)));
    expect([...outcomes].sort()).toEqual(['failed', 'incomplete', 'passed', 'pending']);
  });
});
