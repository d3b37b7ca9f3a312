/**
 * The attribution's search and accounting on synthetic histories: each commit adds a known change to a
 * workload's instructions per transaction (or none: a docs-only commit, which builds its parent's code),
 * and every count has three repetitions 0.1 % apart, as cachegrind's counts are steady.
 */
import { describe, expect, it } from 'vitest';
import {
  UnmeasuredCommit,
  searchAttribution,
  type AttributionSearchDeps,
} from '../../../src/core/attribution/attribution-search.js';
import { accountAttribution } from '../../../src/core/attribution/attribution-accounting.js';
import type { PointCounts } from '../../../src/core/attribution/point-judgement.js';

interface Commit {
  sha: string;
  subject: string;
}

/** A first-parent history: commit i (0 = the `from` end) adds `changes[i]` instructions per transaction. */
function history(n: number, changes: Record<number, number>, base = 40_000) {
  const commits: Commit[] = Array.from({ length: n + 1 }, (_, i) => ({
    sha: `c${String(i).padStart(3, '0')}`,
    subject: changes[i] ? `change ${changes[i]}` : 'docs',
  }));
  const level = (i: number) =>
    base + Object.entries(changes).reduce((s, [k, d]) => (Number(k) <= i ? s + d : s), 0);
  const counted: number[] = [];
  const at = (c: Commit) => commits.indexOf(c);
  const deps: AttributionSearchDeps<Commit> & { counted: number[] } = {
    counted,
    measure: async (c): Promise<PointCounts> => {
      counted.push(at(c));
      const v = level(at(c));
      return { w: [v * 0.9995, v, v * 1.0005] };
    },
    // Same code when no commit after the older one, up to the newer one, changes anything.
    sameCode: async (a, b) => {
      const [lo, hi] = [at(a), at(b)].sort((x, y) => x - y) as [number, number];
      for (let i = lo + 1; i <= hi; i++) if (changes[i] !== undefined) return false;
      return true;
    },
  };
  return { commits, deps, level };
}

const floors = { w: 1 };

describe('searchAttribution and accountAttribution', () => {
  it('names two commits of opposite sign, and their changes add up to the end-to-end change', async () => {
    const h = history(20, { 5: 1200, 14: -600 });
    const search = await searchAttribution(h.commits, { floors, maxCounted: 40 }, h.deps);
    const [w] = accountAttribution(search, floors);
    expect(w!.culprits.map((c) => c.commit.sha)).toEqual(['c005', 'c014']);
    expect(w!.culprits[0]!.deltaPerTx).toBeCloseTo(1200, 6);
    expect(w!.culprits[1]!.deltaPerTx).toBeCloseTo(-600, 6);
    expect(w!.culprits[1]!.deltaPct).toBeLessThan(0);
    expect(w!.totalPerTx).toBeCloseTo(600, 6);
    expect(w!.culprits.map((c) => Math.round(c.sharePct!))).toEqual([200, -100]);
    expect(w!.culpritSumPerTx).toBeCloseTo(w!.totalPerTx, 6);
    expect(w!.remainderPerTx).toBeCloseTo(0, 6);
    expect(w!.unresolved).toEqual([]);
    expect(search.exhausted).toBe(false);
  });

  it('finds one commit among 100 in about log2(100) counts', async () => {
    const h = history(100, { 37: 800 });
    const search = await searchAttribution(h.commits, { floors, maxCounted: 40 }, h.deps);
    const [w] = accountAttribution(search, floors);
    expect(w!.culprits.map((c) => c.index)).toEqual([37]);
    // Docs-only commits take an end's counts without counting, so fewer still than the ends plus log2(100).
    expect(search.counted).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(100)));
    // Even when every commit changes code (the same-code shortcut never applies).
    const busy = history(100, {
      ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i + 1, 1])),
      37: 800,
    });
    const all = await searchAttribution(busy.commits, { floors, maxCounted: 40 }, busy.deps);
    expect(accountAttribution(all, floors)[0]!.culprits.map((c) => c.index)).toEqual([37]);
    expect(all.counted).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(100)));
  });

  it('skips commits whose compiled code equals an end of their range, without counting them', async () => {
    const h = history(10, { 7: 900 });
    const search = await searchAttribution(h.commits, { floors, maxCounted: 40 }, h.deps);
    expect(h.deps.counted).toEqual([0, 10]);
    const skipped = search.points
      .filter((p) => p.sameCodeAs !== undefined)
      .map((p) => [p.index, p.sameCodeAs]);
    expect(skipped).toEqual([
      [5, 0],
      [6, 0],
      [7, 10],
    ]);
    expect(accountAttribution(search, floors)[0]!.culprits.map((c) => c.commit.sha)).toEqual(['c007']);
  });

  it('reports a range whose changes cancel as unseen, not as quiet history', async () => {
    const h = history(10, { 3: 800, 8: -800 });
    const search = await searchAttribution(h.commits, { floors, maxCounted: 40 }, h.deps);
    const [w] = accountAttribution(search, floors);
    expect(w!.endsDiffer).toBe(false);
    expect(w!.culprits).toEqual([]);
    expect(w!.unseen.map((u) => [u.fromIndex, u.toIndex, u.commits])).toEqual([[0, 10, 10]]);
    expect(h.deps.counted).toEqual([0, 10]);
  });

  it('says when the budget ran out, and what is left unresolved, with the parts still adding up', async () => {
    const h = history(64, { 10: 500, 30: 700, 50: -450 });
    const search = await searchAttribution(h.commits, { floors, maxCounted: 4 }, h.deps);
    expect(search.exhausted).toBe(true);
    expect(search.counted).toBe(4);
    const [w] = accountAttribution(search, floors);
    expect(w!.unresolved.length).toBeGreaterThan(0);
    expect(w!.unresolved.every((u) => u.why === 'budget')).toBe(true);
    const unresolved = w!.unresolved.reduce((s, u) => s + u.deltaPerTx, 0);
    expect(w!.culpritSumPerTx + unresolved + w!.belowFloor.perTx).toBeCloseTo(w!.totalPerTx, 6);
    expect(w!.remainderPerTx).toBeCloseTo(w!.totalPerTx - w!.culpritSumPerTx, 6);
  });

  it('passes over a commit that cannot be built for its neighbour, and charges it to the budget', async () => {
    const h = history(8, { 2: 1000, 3: 5, 4: 5, 5: 5, 6: 5 });
    const measure = h.deps.measure;
    const failed: number[] = [];
    const search = await searchAttribution(
      h.commits,
      { floors, maxCounted: 40 },
      {
        ...h.deps,
        measure: async (c) => {
          if (c.sha === 'c004') {
            failed.push(4);
            throw new UnmeasuredCommit('c004: the build failed');
          }
          return measure(c);
        },
      },
    );
    expect(failed).toEqual([4]);
    expect(search.unmeasured).toEqual([{ index: 4, commit: h.commits[4], reason: 'c004: the build failed' }]);
    expect(accountAttribution(search, floors)[0]!.culprits.map((c) => c.index)).toEqual([2]);
    expect(search.counted).toBe(h.deps.counted.length + 1);
  });

  it('splits for any workload and names each commit for the workloads it moved', async () => {
    const commits = Array.from({ length: 9 }, (_, i) => ({ sha: `c${i}`, subject: `s${i}` }));
    const levels = (i: number) => ({ a: 1000 + (i >= 3 ? 50 : 0), b: 2000 + (i >= 6 ? -100 : 0) });
    const counts = (i: number): PointCounts => {
      const l = levels(i);
      return { a: [l.a, l.a, l.a], b: [l.b, l.b * 1.0001, l.b] };
    };
    const two = { a: 1, b: 1 };
    const search = await searchAttribution(
      commits,
      { floors: two, maxCounted: 40 },
      {
        measure: async (c) => counts(commits.indexOf(c)),
        sameCode: async () => false,
      },
    );
    const [a, b] = accountAttribution(search, two);
    expect(a!.culprits.map((c) => c.index)).toEqual([3]);
    expect(b!.culprits.map((c) => c.index)).toEqual([6]);
  });

  it('refuses a range without two ends and a budget below the ends', async () => {
    const h = history(3, {});
    await expect(searchAttribution(h.commits.slice(0, 1), { floors, maxCounted: 5 }, h.deps)).rejects.toThrow(
      /two ends/,
    );
    await expect(searchAttribution(h.commits, { floors, maxCounted: 1 }, h.deps)).rejects.toThrow(
      /at least 2/,
    );
  });
});

describe('searchAttribution with the source asked first', () => {
  it('builds only the commits that change code: the others take a neighbour counts unbuilt', async () => {
    // The history: 12 commits, docs and comments around four that move the count.
    const changes = { 3: 6200, 6: 1860, 9: 1240, 11: -4960 };
    const h = history(12, changes, 39_200);
    const built = new Set<number>();
    const at = (c: Commit) => h.commits.indexOf(c);
    const deps: AttributionSearchDeps<Commit> = {
      ...h.deps,
      sameCode: async (a, b) => {
        built.add(at(a));
        built.add(at(b));
        return h.deps.sameCode(a, b);
      },
      // The source vouches for every range without a code change (as docs and comments are).
      sameSource: (a, b) => h.deps.sameCode(a, b),
    };
    const search = await searchAttribution(h.commits, { floors, maxCounted: 40 }, deps);
    const [w] = accountAttribution(search, floors);
    expect(w!.culprits.map((c) => c.index)).toEqual([3, 6, 9, 11]);
    expect(w!.culpritSumPerTx).toBeCloseTo(w!.totalPerTx, 6);
    // Built: the ends and the code-changing commits the halving met; never a docs or comment commit.
    expect([...built].every((i) => i === 0 || i === 12 || i in changes)).toBe(true);
    expect(built.size).toBeLessThanOrEqual(6);
    expect(search.counted).toBeLessThanOrEqual(6);
  });
});
