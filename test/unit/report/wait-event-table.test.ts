import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderWaitEventComparison } from '../../../src/core/report/evidence/wait-event-table.js';
import type { RunDiagnostics } from '../../../src/core/results/diagnostics.js';

const hotRow = JSON.parse(
  await readFile(new URL('../../fixtures/diagnostics/hot-row-pg15.json', import.meta.url), 'utf8'),
) as RunDiagnostics;

/** A run with the given wait-event counts and counters (the rest as in the captured run). */
function run(
  events: Record<string, number>,
  counters: Record<string, number>,
  transactions: number,
): RunDiagnostics {
  const observations = Object.values(events).reduce((a, b) => a + b, 0);
  return {
    ...hotRow,
    observations,
    waitEvents: Object.entries(events).map(([event, count]) => ({
      event,
      count,
      share: count / observations,
    })),
    counters: { 'database.xact_commit': transactions, ...counters },
    transactions,
  };
}

describe('renderWaitEventComparison', () => {
  it('a B-tree root-page fix: LWLock:BufferContent falls, CPU rises, buffer hits per transaction fall', () => {
    const base = [
      run(
        { 'LWLock:BufferContent': 600, 'CPU:Running': 300, 'Client:ClientRead': 100 },
        { 'database.blks_hit': 40_000 },
        10_000,
      ),
      run(
        { 'LWLock:BufferContent': 580, 'CPU:Running': 320, 'Client:ClientRead': 100 },
        { 'database.blks_hit': 41_000 },
        10_000,
      ),
    ];
    const head = [
      run(
        { 'LWLock:BufferContent': 100, 'CPU:Running': 750, 'Client:ClientRead': 150 },
        { 'database.blks_hit': 45_000 },
        15_000,
      ),
    ];
    const md = renderWaitEventComparison(base, head);
    expect(md).toContain('base 2000, head 1000 observations');
    expect(md).toContain('| LWLock:BufferContent | 59.0% | 10.0% | −49.0 pp |');
    expect(md).toContain('| CPU:Running | 31.0% | 75.0% | +44.0 pp |');
    // 81,000 hits over 20,000 txns vs 45,000 over 15,000: 4.05 -> 3 per transaction.
    expect(md).toContain('| database.blks&#95;hit | 4.05 | 3 | −25.9% |');
    expect(md).not.toContain('xact_commit');
    expect(md.indexOf('LWLock:BufferContent')).toBeLessThan(md.indexOf('Client:ClientRead'));
  });

  it('the captured hot-row run against itself: Lock:transactionid first, no change, no counter table', () => {
    const md = renderWaitEventComparison([hotRow], [hotRow]);
    expect(md.split('\n')[4]).toBe('| Lock:transactionid | 72.4% | 72.4% | ±0.0 pp |');
    expect(md).not.toContain('per transaction');
  });

  it('keeps to the top rows and says so when nothing was sampled', () => {
    const md = renderWaitEventComparison([hotRow], [hotRow], { top: 3 });
    expect(md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Wait'))).toHaveLength(3);
    expect(renderWaitEventComparison([], [])).toBe('No wait-event samples were taken.\n');
  });
});
