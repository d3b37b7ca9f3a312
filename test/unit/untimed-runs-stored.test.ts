/**
 * Runs decided without timed rounds are kept in the store like every answer (#39 item 7): a head on base's
 * compiled code and settings, and `--metric instructions` (the counts decide), go through the run loop's
 * store sink (archive-sink.ts) into a real directory store, are listed and shown, and appear in the
 * history's cost chart; having no sample, they never serve as a stored baseline, never feed the runner's
 * noise or its floors, and never rename a history's series.
 */
import { describe, expect, it } from 'vitest';
import { analyseHistory } from '../../src/core/history/history-analysis.js';
import { buildSeries } from '../../src/core/history/series.js';
import { answerCost } from '../../src/core/results/answer-cost.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { conditionsOfArm } from '../../src/flows/compare/baseline/baseline-conditions.js';
import { chooseStoredBaseline } from '../../src/flows/compare/baseline/choose-baseline.js';
import { loadRunsOf, runnerId, runsOf } from '../../src/flows/compare/noise/runner-noise.js';
import { archiveSink, worthKeeping } from '../../src/flows/compare/pipeline/archive-sink.js';
import { loadStoredRuns } from '../../src/flows/history/load-runs.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { renderRunDetails, renderRunTable } from '../../src/store/run-table.js';
import { fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const fixture = readFixture();
const tmp = useTmpDir('pgperf-untimed-', { perTest: true });
const openStore = () => DirStore.open(tmp(), { warn: () => {}, write: true });

/** The real run, measured (3 timed rounds), started `minutes` after a fixed instant. */
function timed(minutes: number): RunResult {
  return fixtureVariant(fixture, { startedAt: minutesAfter(minutes), head: { ref: 'pr-1' } });
}

/**
 * The same run decided without timed rounds, as the run loop leaves it (run-loop.ts: plan.rounds 0, no
 * sample, complete, no cluster started: an empty settings hash), with the cost the pipeline adds.
 */
function untimed(minutes: number, why: 'same-code' | 'counts'): RunResult {
  const doc = timed(minutes);
  doc.samples = [];
  doc.plan.rounds = 0;
  doc.plan.executed = [];
  doc.environment.settingsHash = '';
  if (why === 'same-code')
    doc.compiledCode = [{ head: 'head', identical: true, files: 120, differingFiles: [], differingCount: 0 }];
  else doc.analysis = { alpha: 0.05, thresholdPct: 2, metric: 'instructions' };
  return doc;
}

/** Through the store sink as the pipeline drives it: finished by the run loop, then amended with its cost. */
async function archive(store: DirStore, doc: RunResult): Promise<string> {
  const sink = archiveSink(store);
  await sink.sink.finish(doc);
  await sink.amend({ ...doc, cost: answerCost(doc, { buildS: 40, countedS: 12, timedS: 0, wallS: 55 }) });
  expect(sink.error).toBeUndefined();
  expect(sink.saved).toBeDefined();
  return sink.saved!.id;
}

describe('a run decided without timed rounds is saved', () => {
  it('is worth keeping; a run stopped before its first sample is not', () => {
    expect(worthKeeping(untimed(1, 'same-code'))).toBe(true);
    expect(worthKeeping(untimed(1, 'counts'))).toBe(true);
    expect(worthKeeping({ ...timed(1), samples: [], status: 'interrupted' })).toBe(false);
    expect(worthKeeping({ ...timed(1), samples: [], status: 'complete' })).toBe(false);
  });

  it('same code and counts-only: saved, listed, shown with their cost, in the cost chart', async () => {
    const store = await openStore();
    const measured = await archive(store, timed(1));
    const sameCode = await archive(store, untimed(2, 'same-code'));
    const counts = await archive(store, untimed(3, 'counts'));

    const listed = await store.list();
    expect(listed.map((r) => [r.id, r.samples])).toEqual([
      [counts, 0],
      [sameCode, 0],
      [measured, fixture.samples.length],
    ]);
    expect(renderRunTable(listed)).toContain(sameCode);
    const shown = renderRunDetails(await store.load(sameCode));
    expect(shown).toContain('9 cells, 0 rounds, 0 samples (0 ok, 0 failed)');
    expect(shown).toContain('answered in 55s: build 40s, counted runs 12s, no timed rounds');
    expect((await store.load(counts)).analysis?.metric).toBe('instructions');

    // The history site's data: three answers in the cost chart, no point of the untimed runs in a series.
    const runs = await loadStoredRuns(store);
    const history = analyseHistory(runs);
    expect(history.runs).toBe(3);
    expect(history.costs.points.map((p) => p.runId)).toEqual([measured, sameCode, counts]);
    expect(history.costs.points[1]!.cost.timedRounds).toBe(0);
    const points = history.series.flatMap((s) => s.series.points.map((p) => p.runId));
    expect(points.length).toBeGreaterThan(0);
    expect(new Set(points)).toEqual(new Set([measured]));
    await store.close();
  });
});

describe('a run without samples serves no reader of samples', () => {
  it('is never chosen as a stored baseline, nor passed over as one measured otherwise', async () => {
    const store = await openStore();
    const now = conditionsOfArm(fixture, fixture.arms[1]!);
    const options = { store, allowFingerprintMismatch: false };
    await archive(store, untimed(2, 'same-code'));
    await expect(chooseStoredBaseline(options, now, 'pr')).rejects.toThrow(
      /^--baseline stored: no complete stored run of workloads smoke, select-only with timed samples in /,
    );
    await expect(chooseStoredBaseline({ ...options, ref: 'pr-1' }, now, 'pr')).rejects.toThrow(
      /^--baseline stored:pr-1: no stored run of workloads smoke, select-only with timed samples /,
    );

    const measured = await archive(store, timed(1));
    await archive(store, untimed(3, 'counts'));
    const choice = await chooseStoredBaseline(options, now, 'pr');
    expect(choice.entry.id).toBe(measured);
    expect(choice.passedOver).toEqual([]);
    await store.close();
  });

  it('is never read for the runner noise nor its floors', async () => {
    const store = await openStore();
    const measured = await archive(store, timed(1));
    await archive(store, untimed(2, 'same-code'));
    await archive(store, untimed(3, 'counts'));
    const cells = [{ workload: 'smoke', clients: 1 }];
    const read = await loadRunsOf(store, cells);
    expect(read.map((r) => r.runId)).toEqual([measured]);
    // Pure too: runs given by hand (history --results) are passed over the same way.
    const runner = runnerId(fixture.environment);
    const given = [timed(1), untimed(2, 'same-code')].map((r, i) => ({ ...r, runId: `r${i}` }));
    expect(runsOf(given, runner).map((r) => r.runId)).toEqual(['r0']);
    await store.close();
  });

  it("does not give its fingerprint (no settings hash) to the history's series", async () => {
    const store = await openStore();
    await archive(store, timed(1));
    await archive(store, untimed(2, 'same-code'));
    const runs = await loadStoredRuns(store);
    expect(runs[1]!.fingerprint!.id).not.toBe(runs[0]!.fingerprint!.id);
    const ids = new Set(buildSeries(runs).map((s) => s.key.fingerprint));
    expect(ids).toEqual(new Set([runs[0]!.fingerprint!.id]));
    await store.close();
  });
});
