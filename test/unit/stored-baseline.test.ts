import { readFileSync } from 'node:fs';
import { decide } from '../../src/compare/decision.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseInputs } from '../../src/action/inputs.js';
import { analyse } from '../../src/pipeline/analysis.js';
import { judgeSentinel, parseBaselineSpec } from '../../src/pipeline/stored-baseline.js';
import { describeStoredBaseline, renderComparisonText } from '../../src/report/comparison-text.js';
import { renderMarkdownReport } from '../../src/report/markdown.js';
import { reportInputOf } from '../../src/pipeline/report-input.js';
import type { RunResult, StoredBaselineInfo } from '../../src/results/types.js';
import { readFixture } from '../integration/store-fixture.js';

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
  const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
  };
  const read = (overrides: Record<string, string>) => (name: string) =>
    overrides[name] ?? (name === 'github-token' ? 'token' : (action.inputs[name]?.default ?? ''));
  it('defaults to same-job without a store', () => {
    const inputs = parseInputs(read({}));
    expect(inputs.baseline).toEqual({ kind: 'same-job' });
    expect(inputs.store).toBeUndefined();
    expect(inputs.storeBranch).toBeUndefined();
  });
  it('stored:REF with a store-branch', () => {
    const inputs = parseInputs(read({ baseline: 'stored:master', 'store-branch': 'pgperf-data' }));
    expect(inputs.baseline).toEqual({ kind: 'stored', ref: 'master' });
  });
  it('refuses stored without a store, and a URL store with a store-branch', () => {
    expect(() => parseInputs(read({ baseline: 'stored' }))).toThrow(
      /input 'baseline' is stored, .* set 'store'/,
    );
    expect(() => parseInputs(read({ store: 'postgresql://u:pw@db/perf', 'store-branch': 'data' }))).toThrow(
      /exclude each other/,
    );
  });
});
