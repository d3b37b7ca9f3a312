/**
 * The largest backend's memory contexts in the reports: shown under the cell's backend memory, base's beside
 * head's, in the terminal and the comment's steady section, only where the backend memory moved beyond its
 * floors. The contexts are those PostgreSQL 18 logged for a backend of the bind-memory head
 * (test/fixtures/memory-contexts), so the figures are real ones. And the per-metric tables of a memory
 * metric read in sizes, as the steady line does ("1.9 MB", not "1992294.4"); other metrics keep decimals.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { steadySummary } from '../../../src/core/compare/evidence/steady-summary.js';
import { renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import { renderJobSummary } from '../../../src/core/report/markdown/markdown.js';
import { steadyMetricsSection } from '../../../src/core/report/evidence/steady-metrics-section.js';
import { parseMemoryContextsLog } from '../../../src/postgres/memory/memory-contexts-log.js';
import { topContexts, type MemoryContextsRecord } from '../../../src/core/results/memory-contexts.js';
import type { RunResult, Sample } from '../../../src/core/results/result-types.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

const MB = 1024 * 1024;
const logged = parseMemoryContextsLog(
  readFileSync(path.join(__dirname, '../../fixtures/memory-contexts/pg18-bind-head-select-only.log'), 'utf8'),
  10864,
)!;

/** Base's backends hold 1.9 MB, head's `headMb`; each run records `contexts(arm)`. */
function run(headMb: number, contexts: (arm: string) => MemoryContextsRecord | undefined): RunResult {
  const result = syntheticRun({
    seed: 12,
    rounds: 5,
    workloads: { 'select-only': [2] },
    noise: 0.005,
    effect: () => 1,
  });
  return {
    ...result,
    analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps' },
    samples: result.samples.map((s, i) => {
      const bytes = (s.arm === 'head' ? headMb : 1.9) * MB + (i % 3) * 4096;
      const c = contexts(s.arm);
      return {
        ...s,
        metrics: { ...s.metrics, backendMemoryPeakBytes: bytes, backendMemoryMedianBytes: bytes },
        memory: {
          version: 1,
          field: 'Anonymous',
          intervalMs: 250,
          ticks: 8,
          backends: 2,
          peakBytes: bytes,
          medianBytes: bytes,
          ...(c ? { contexts: c } : {}),
        },
      } satisfies Sample;
    }),
  };
}

/** The fixture's contexts, with `extra` bytes in MessageContext. */
function recorded(backendMb: number, extra = 0): MemoryContextsRecord {
  const contexts = logged.contexts.map((c) =>
    c.name === 'MessageContext' ? { ...c, totalBytes: c.totalBytes + extra } : c,
  );
  return {
    pid: 10864,
    top: topContexts(contexts),
    totalBytes: logged.grandTotalBytes + extra,
    backendBytes: backendMb * MB,
  };
}

function terminal(result: RunResult): string {
  const comparison = analyse(result);
  return renderComparisonText(comparison, decideRun(result, comparison), undefined, steadySummary(result));
}

describe('the largest backend’s memory contexts in the reports', () => {
  it('where memory moved: base’s and head’s side by side, with the memory outside any context', () => {
    // What the bind head really shows: the same contexts, 4 MB more outside them (freed, kept by malloc).
    const result = run(5.9, (arm) => recorded(arm === 'head' ? 5.9 : 1.9));
    const text = terminal(result);
    expect(text).toContain(
      '    memory contexts of the largest backend, base -> head: CacheMemoryContext 512 kB -> 512 kB; ' +
        'index info 220 kB -> 220 kB; Timezones 102 kB -> 102 kB; TopMemoryContext 97.1 kB -> 97.1 kB; ' +
        'WAL record construction 48.6 kB -> 48.6 kB; all contexts 1.26 MB -> 1.26 MB; ' +
        'outside any context 653 kB -> 4.64 MB\n',
    );
    // Right under the cell's steady line.
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('  select-only@2: '));
    expect(lines[at + 1]).toMatch(/^ {4}memory contexts of the largest backend/);
    const md = steadyMetricsSection(result)!.body.join('\n');
    expect(md).toMatch(
      /^- select-only&#64;2: memory contexts of the largest backend, base → head: CacheMemoryContext/m,
    );
    expect(md).toContain('outside any context 653 kB → 4');
  });

  it('a context that grew by 4 MB leads, and a name not among an arm’s largest is at most its smallest', () => {
    const result = run(5.9, (arm) => (arm === 'head' ? recorded(5.9, 4 * MB) : recorded(1.9)));
    expect(terminal(result)).toMatch(
      /memory contexts of the largest backend, base -> head: MessageContext ≤ 48\.6 kB -> 4\.01 MB; CacheMemoryContext 512 kB -> 512 kB; .*; all contexts 1\.26 MB -> 5\.26 MB; outside any context 653 kB -> 653 kB/,
    );
  });

  it('an arm without them says why', () => {
    const result = run(5.9, (arm) =>
      arm === 'head'
        ? recorded(5.9)
        : { notRecorded: 'pg_log_backend_memory_contexts failed (PostgreSQL 14+): no' },
    );
    expect(terminal(result)).toMatch(
      /CacheMemoryContext – -> 512 kB; .*; base's not recorded: pg_log_backend_memory_contexts failed \(PostgreSQL 14\+\): no/,
    );
  });

  it('where memory did not move (an A/A pair), or no run recorded them, nothing is shown', () => {
    expect(terminal(run(1.9, () => recorded(1.9)))).not.toContain('memory contexts');
    expect(steadyMetricsSection(run(1.9, () => recorded(1.9)))!.body.join('\n')).not.toContain(
      'memory contexts',
    );
    expect(terminal(run(5.9, () => undefined))).not.toContain('memory contexts');
  });
});

describe('a memory metric in the per-metric tables', () => {
  it('reads its medians as sizes in the terminal and in markdown', () => {
    const result = run(5.9, () => undefined);
    const comparison = analyse(result);
    const decision = decideRun(result, comparison);
    const text = renderComparisonText(comparison, decision);
    const row = text.split('\n').find((l) => /^\s+2\s+5\/5\s+1\.9 MB\s+5\.9 MB\s/.test(l));
    expect(row, text).toBeDefined();
    expect(text).not.toMatch(/199\d{4}/);
    // TPS keeps its decimals.
    expect(text).toMatch(/^\s+2\s+5\/5\s+\d+\.\d\s+\d+\.\d\s/m);
    const md = renderJobSummary({ result, comparison, decision });
    expect(md).toMatch(/\| 1\.9 MB \| 5\.9 MB \|/);
    expect(md).not.toMatch(/1,99\d,\d{3}/);
  });
});
