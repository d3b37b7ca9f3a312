import { decide } from '../../src/core/compare/decision/decision.js';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { conditionsOfArm, type ArmConditions } from '../../src/flows/compare/baseline/baseline-conditions.js';
import { chooseStoredBaseline } from '../../src/flows/compare/baseline/choose-baseline.js';
import {
  conditionDifferences,
  describeDifferences,
  type ConditionDifference,
} from '../../src/flows/compare/baseline/condition-differences.js';
import { judgeSentinel } from '../../src/flows/compare/baseline/sentinel.js';
import { parseBaselineSpec } from '../../src/flows/compare/baseline/stored-baseline-spec.js';
import {
  describeStoredBaseline,
  renderComparisonText,
} from '../../src/core/report/terminal/comparison-text.js';
import { renderMarkdownReport } from '../../src/core/report/markdown/markdown.js';
import { reportInputOf } from '../../src/flows/compare/pipeline/report-input.js';
import type { RunResult, StoredBaselineInfo } from '../../src/core/results/result-types.js';
import {
  documentToStore,
  matchesFilter,
  newestFirst,
  resolveFilter,
  summarize,
  type RunFilter,
} from '../../src/store/store.js';
import { fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';
import { parseActionInputs } from '../helpers/action-inputs.js';

const fixture = readFixture();
const info = (status: 'steady' | 'drifted' | 'skipped'): StoredBaselineInfo => ({
  runId: '20261120T100000Z-0a1b2c3d',
  commit: '1a2b3c4d5e6f7081',
  ref: 'master',
  storedAt: '2026-11-20T10:05:00Z',
  measuredAt: '2026-11-20T10:00:00Z',
  ageDays: 3.2,
  sentinel: {
    status,
    reason: status === 'drifted' ? 'machine drift: base moved' : 'sentinel: steady',
    onDrift: 'inconclusive',
  },
});

describe('parseBaselineSpec', () => {
  it('reads same-job, stored and stored:REF', () => {
    expect(parseBaselineSpec('same-job', '--baseline')).toEqual({ kind: 'same-job' });
    expect(parseBaselineSpec(' stored ', '--baseline')).toEqual({ kind: 'stored' });
    expect(parseBaselineSpec('stored:1a2b3c', '--baseline')).toEqual({ kind: 'stored', ref: '1a2b3c' });
  });
  it('refuses anything else, naming the flag and the value', () => {
    expect(() => parseBaselineSpec('stored:', '--baseline')).toThrow(
      /--baseline 'stored:' is not a baseline; expected same-job, stored/,
    );
    expect(() => parseBaselineSpec('nightly', "input 'baseline'")).toThrow(/input 'baseline' 'nightly'/);
  });
});

describe('analyse with a stored baseline', () => {
  it('uses the unpaired test (the rounds were not interleaved) and names the baseline in the text report', () => {
    const paired = analyse(fixture);
    expect(paired.primaryTest).toBe('signed-rank');
    const stored: RunResult = { ...fixture, baseline: info('steady') };
    const c = analyse(stored);
    expect(c.primaryTest).toBe('mann-whitney');
    expect(c.comparisons[0]!.cells.every((cell) => cell.p === null || cell.test === 'mann-whitney')).toBe(
      true,
    );
    const text = renderComparisonText(c, decide(c), stored.baseline);
    expect(text.split('\n')[2]).toBe(describeStoredBaseline(stored.baseline!));
    expect(text).toContain(
      'baseline: stored run 20261120T100000Z-0a1b2c3d, commit 1a2b3c4d5e (master), measured 3.2 day(s) ago',
    );
  });

  it('a drifted sentinel makes every verdict inconclusive and says why, in text and markdown', () => {
    const drifted: RunResult = { ...fixture, baseline: info('drifted') };
    const c = analyse(drifted);
    expect(c.verdict).toBe('inconclusive');
    expect(c.comparisons.every((a) => a.verdict === 'inconclusive')).toBe(true);
    expect(c.warnings[0]).toBe('machine drift: base moved');
    const md = renderMarkdownReport({ ...reportInputOf(drifted, c), commentId: 'default' });
    expect(md.split('\n')[1]).toContain('stored run 20261120T100000Z-0a1b2c3d');
    expect(md.split('\n')[1]).toContain('3.2 day(s) ago');
  });
});

/**
 * What this job would measure: the fixture's head arm (synchronous_commit off) as a run of its own, one arm
 * under another label, so its run-level settingsHash differs from the stored run's (the root of the spurious
 * refusals: that hash covers every arm of a run, by label).
 */
function measuredNow(change: (doc: RunResult) => void = () => {}): ArmConditions {
  const doc = structuredClone(fixture);
  const head = { ...doc.arms[1]!, label: 'pr' };
  doc.arms = [head];
  doc.samples = doc.samples.filter((s) => s.arm === 'head').map((s) => ({ ...s, arm: 'pr' }));
  doc.environment.settingsHash = 'a-hash-of-one-arm';
  change(doc);
  return conditionsOfArm(doc, doc.arms[0]!);
}

const storedHead = () => conditionsOfArm(fixture, fixture.arms[1]!);

describe('conditionDifferences: what must agree for stored samples to compare with head', () => {
  it('nothing differs for the same arm measured alike, whatever the labels and other arms of either run', () => {
    expect(fixture.environment.settingsHash).not.toBe('a-hash-of-one-arm');
    expect(conditionDifferences(storedHead(), measuredNow())).toEqual([]);
  });

  it("names a setting with both values (the arm's after the workload's), once when every workload shares it", () => {
    const now = measuredNow((doc) => {
      doc.arms[0]!.settingOverrides = { synchronous_commit: 'on', work_mem: '64MB' };
    });
    const diffs = conditionDifferences(storedHead(), now);
    expect(diffs.map((d) => [d.kind, d.workload, d.name, d.stored, d.now])).toEqual([
      ['setting', 'smoke', 'synchronous_commit', 'off', 'on'],
      ['setting', 'smoke', 'work_mem', undefined, '64MB'],
      ['setting', 'select-only', 'synchronous_commit', 'off', 'on'],
      ['setting', 'select-only', 'work_mem', undefined, '64MB'],
    ]);
    expect(describeDifferences(diffs, ['smoke', 'select-only'])).toBe(
      "settings differ: synchronous_commit: stored 'off', now 'on'; work_mem: stored (not set: pgperf's default), now '64MB'",
    );
  });

  it('names a workload when only some workloads differ, and workload fields that change what a run measures', () => {
    const now = measuredNow((doc) => {
      const smoke = doc.workloads.smoke as Record<string, unknown>;
      // Rounds, threshold and description do not change a measured run; duration and settings do.
      doc.workloads.smoke = {
        ...smoke,
        rounds: 9,
        threshold: 5,
        description: 'renamed',
        duration: 1,
        settings: { shared_buffers: '1GB' },
      };
    });
    expect(describeDifferences(conditionDifferences(storedHead(), now), ['smoke', 'select-only'])).toBe(
      "settings differ: shared_buffers (workload smoke): stored (not set: pgperf's default), now '1GB'; workload smoke: duration stored 2, now 1",
    );
  });

  it('names client counts the stored arm has no samples of, and environment facts, with both values', () => {
    const now: ArmConditions = {
      ...measuredNow((doc) => {
        doc.environment.kernel = '6.19.0';
        doc.clients = [{ ...doc.clients[0]!, version: 'pgbench (PostgreSQL) 17.2' }];
      }),
    };
    now.cells = [...now.cells, 'select-only@128'];
    const diffs = conditionDifferences(storedHead(), now);
    expect(diffs.map((d) => d.kind)).toEqual(['environment', 'environment', 'cells']);
    expect(describeDifferences(diffs, ['smoke', 'select-only'])).toBe(
      "environment differs: client.pgbench: stored 'pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)', now 'pgbench (PostgreSQL) 17.2'; " +
        "kernel: stored '6.18.44-fc-v782', now '6.19.0'; " +
        'workload select-only: clients stored [1,2,4,8,16,32,64], now [1,2,4,8,16,32,64,128]',
    );
  });

  it("renders the issue's example", () => {
    const diffs: ConditionDifference[] = [
      { kind: 'setting', workload: 'select-only', name: 'shared_buffers', stored: '128MB', now: '1GB' },
      { kind: 'cells', workload: 'select-only', name: 'clients', stored: '[1,2]', now: '[1,4]' },
    ];
    expect(describeDifferences(diffs, ['select-only'])).toBe(
      "settings differ: shared_buffers: stored '128MB', now '1GB'; workload select-only: clients stored [1,2], now [1,4]",
    );
  });
});

/** A store in memory with the real listing semantics (summaries, filter, newest first). */
function memoryStore(docs: RunResult[]) {
  const stored = docs.map((d) => documentToStore(d, 'test document'));
  const loaded: string[] = [];
  return {
    description: 'memory store',
    loaded,
    list: (filter?: RunFilter) => {
      const f = resolveFilter(filter);
      const runs = stored.map((d) => summarize(d, d.startedAt)).filter((r) => matchesFilter(r, f));
      return Promise.resolve(runs.sort(newestFirst));
    },
    load: (id: string) => {
      loaded.push(id);
      return Promise.resolve(structuredClone(stored.find((d) => d.runId === id)!));
    },
    save: () => Promise.reject(new Error('read only')),
    close: () => Promise.resolve(),
  };
}

function storedRun(minutes: number, change: (doc: RunResult) => void = () => {}): RunResult {
  const doc = fixtureVariant(fixture, {
    startedAt: minutesAfter(minutes),
    head: { ref: `ref-${minutes}`, sha: `${minutes}`.padStart(4, '0').repeat(10) },
  });
  change(doc);
  return doc;
}

describe('chooseStoredBaseline: one rule, before anything is measured', () => {
  const options = (docs: RunResult[], more: { ref?: string; allowFingerprintMismatch?: boolean } = {}) => ({
    store: memoryStore(docs),
    allowFingerprintMismatch: more.allowFingerprintMismatch ?? false,
    ...(more.ref !== undefined ? { ref: more.ref } : {}),
  });
  const otherSettings = (doc: RunResult) => {
    doc.arms[1]!.settingOverrides = { synchronous_commit: 'off', shared_buffers: '128MB' };
  };

  it('chooses the newest stored run whose arm fits, passing over a newer one measured otherwise and saying why', async () => {
    const fits = storedRun(1);
    const newer = storedRun(2, otherSettings);
    const choice = await chooseStoredBaseline(options([fits, newer]), measuredNow(), 'pr');
    expect(choice.entry.startedAt).toBe(fits.startedAt);
    expect(choice.arm.label).toBe('head');
    expect(choice.differences).toEqual([]);
    expect(choice.passedOver).toHaveLength(1);
    expect(choice.passedOver[0]!.differences.map((d) => d.name)).toEqual([
      'shared_buffers',
      'shared_buffers',
    ]);
  });

  it('refuses when no stored run fits, naming what differs with both values and how to proceed', async () => {
    const newer = storedRun(2, (doc) => {
      otherSettings(doc);
      doc.environment.kernel = '6.1.0-old';
    });
    const message = await chooseStoredBaseline(options([newer]), measuredNow(), 'pr').then(
      () => 'chosen',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    expect(message).toMatch(
      /^--baseline stored: the stored run \S+ \(measured \S+, arm head\) in memory store /,
    );
    expect(message).toContain(
      "was measured under other conditions than pr would be now: environment differs: kernel: stored '6.1.0-old', now '6.18.44-fc-v782'; " +
        "settings differ: shared_buffers: stored '128MB', now (not set: pgperf's default). Nothing was measured. To proceed: ",
    );
    expect(message).toContain('--set pr:shared_buffers=128MB');
    expect(message).toContain('pass --allow-fingerprint-mismatch to compare anyway');
    expect(message).toContain('--baseline stored:REF (see "pgperf store list --workload smoke")');
  });

  it('with --allow-fingerprint-mismatch takes the newest and records what differs; missing cells it cannot allow', async () => {
    const newer = storedRun(2, otherSettings);
    const allowed = await chooseStoredBaseline(
      options([storedRun(1, otherSettings), newer], { allowFingerprintMismatch: true }),
      measuredNow(),
      'pr',
    );
    expect(allowed.entry.startedAt).toBe(newer.startedAt);
    expect(allowed.differences.map((d) => `${d.name}=${d.stored}`)).toContain('shared_buffers=128MB');

    const wider = measuredNow();
    wider.cells.push('smoke@4');
    await expect(
      chooseStoredBaseline(options([newer], { allowFingerprintMismatch: true }), wider, 'pr'),
    ).rejects.toThrow(
      /workload smoke: clients stored \[1,2\], now \[1,2,4\].*request only stored client counts \(smoke: \[1,2\]\)/,
    );
  });

  it('stored:REF chooses among the runs of REF only, by the same rule', async () => {
    const docs = [storedRun(1), storedRun(2, otherSettings), storedRun(3)];
    const ofRef = await chooseStoredBaseline(options(docs, { ref: 'ref-1' }), measuredNow(), 'pr');
    expect(ofRef.entry.startedAt).toBe(docs[0]!.startedAt);
    await expect(chooseStoredBaseline(options(docs, { ref: 'ref-2' }), measuredNow(), 'pr')).rejects.toThrow(
      /^--baseline stored:ref-2: the stored run .*shared_buffers: stored '128MB'/,
    );
  });

  it('a stored run without a stored sample of a requested cell does not fit (a shard, an interrupted run)', async () => {
    const partial = storedRun(2, (doc) => {
      doc.samples = doc.samples.filter((s) => !(s.workload === 'select-only' && s.clients === 64));
      doc.status = 'interrupted';
    });
    await expect(
      chooseStoredBaseline(options([partial], { ref: 'ref-2' }), measuredNow(), 'pr'),
    ).rejects.toThrow(/workload select-only: clients stored \[1,2,4,8,16,32\], now \[1,2,4,8,16,32,64\]/);
  });
});

describe('judgeSentinel', () => {
  const base = fixture.arms[0]!;
  const sentinelOf = (factor: number): RunResult => ({
    ...fixture,
    samples: fixture.samples
      .filter((s) => s.arm === 'base')
      .map((s) => ({ ...s, metrics: { ...s.metrics, tps: s.metrics.tps! * factor } })),
  });
  it('steady when the install measures as stored', () => {
    expect(judgeSentinel(fixture, base, sentinelOf(1), 'inconclusive').status).toBe('steady');
  });
  it('drifted when the install now measures far from its stored samples, naming the cells', () => {
    const s = judgeSentinel(fixture, base, sentinelOf(0.5), 'refuse');
    expect(s.status).toBe('drifted');
    expect(s.reason).toMatch(/^machine drift: .* -50\.0%.*the comparison is refused$/);
  });
});

describe('action inputs: store, store-branch, baseline', () => {
  it('defaults to same-job without a store', () => {
    const inputs = parseActionInputs({});
    expect(inputs.baseline).toEqual({ kind: 'same-job' });
    expect(inputs.store).toBeUndefined();
    expect(inputs.storeBranch).toBeUndefined();
  });
  it('stored:REF with a store-branch', () => {
    const inputs = parseActionInputs({ baseline: 'stored:master', 'store-branch': 'pgperf-data' });
    expect(inputs.baseline).toEqual({ kind: 'stored', ref: 'master' });
  });
  it('refuses stored without a store, and a URL store with a store-branch', () => {
    expect(() => parseActionInputs({ baseline: 'stored' })).toThrow(
      /input 'baseline' is stored, .* set 'store'/,
    );
    expect(() => parseActionInputs({ store: 'postgresql://u:pw@db/perf', 'store-branch': 'data' })).toThrow(
      /exclude each other/,
    );
  });
});
