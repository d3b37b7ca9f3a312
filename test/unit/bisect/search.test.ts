import { describe, expect, it } from 'vitest';
import {
  afterCall,
  bisect,
  nextIndex,
  outcomeOf,
  startSearch,
  stepsLeft,
} from '../../../src/flows/bisect/search.js';
import { type Call } from '../../../src/core/history/bisect-report.js';
import { callOf } from '../../../src/flows/bisect/bisection.js';

/** Commits 0..size-1 where every commit from firstBad on is bad; a judge that records what it was asked. */
function fakeJudge(firstBad: number, undecided: ReadonlySet<number> = new Set()) {
  const asked: number[] = [];
  const judge = async (commit: number) => {
    asked.push(commit);
    const call: Call = undecided.has(commit) ? 'undecided' : commit >= firstBad ? 'bad' : 'good';
    return { call, detail: `measured ${commit}` };
  };
  return { judge, asked };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('bisect search', () => {
  it('finds the first bad commit at every position of ranges of every size, in at most 1 + ceil(log2 n) steps', async () => {
    for (let size = 2; size <= 40; size++) {
      for (let firstBad = 1; firstBad < size; firstBad++) {
        const { judge, asked } = fakeJudge(firstBad);
        const result = await bisect(range(size), judge);
        expect(result.outcome).toEqual({ kind: 'found', firstBad, lastGood: firstBad - 1 });
        expect(asked[0]).toBe(size - 1); // bad is verified first
        expect(asked).not.toContain(0); // good is never measured
        expect(new Set(asked).size).toBe(asked.length); // no commit twice
        expect(asked.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(size - 1)));
      }
    }
  });

  it('records every test in order with its step, index and the judge detail', async () => {
    const { judge } = fakeJudge(3);
    const result = await bisect(['g', 'a', 'b', 'c', 'd', 'bad'], (c) =>
      judge(['g', 'a', 'b', 'c', 'd', 'bad'].indexOf(c)),
    );
    expect(result.tested.map((t) => [t.step, t.index, t.commit, t.call, t.detail])).toEqual([
      [1, 5, 'bad', 'bad', 'measured 5'],
      [2, 2, 'b', 'good', 'measured 2'],
      [3, 3, 'c', 'bad', 'measured 3'],
    ]);
  });

  it('a range of one commit (bad right after good) needs only the check of bad', async () => {
    const { judge, asked } = fakeJudge(1);
    expect((await bisect([0, 1], judge)).outcome).toEqual({ kind: 'found', firstBad: 1, lastGood: 0 });
    expect(asked).toEqual([1]);
  });

  it('without verifying bad it trusts bad and measures only midpoints', async () => {
    const { judge, asked } = fakeJudge(1);
    expect((await bisect([0, 1], judge, { verifyBad: false })).outcome.kind).toBe('found');
    expect(asked).toEqual([]);
    const five = fakeJudge(4);
    expect((await bisect(range(6), five.judge, { verifyBad: false })).outcome).toMatchObject({ firstBad: 4 });
    expect(five.asked).not.toContain(5);
  });

  it('without verifying bad, a range whose midpoints are all good ends at bad, which was never judged', async () => {
    const { judge, asked } = fakeJudge(5);
    const result = await bisect(range(6), judge, { verifyBad: false });
    expect(result.outcome).toEqual({ kind: 'found', firstBad: 5, lastGood: 4 });
    expect(asked).not.toContain(5);
    expect(result.tested.map((t) => t.index)).not.toContain(5);
  });

  it('reports a bad commit that measures good as not reproduced, blaming nothing', async () => {
    const { judge, asked } = fakeJudge(Infinity);
    expect((await bisect(range(8), judge)).outcome).toEqual({ kind: 'not-reproduced' });
    expect(asked).toEqual([7]);
  });

  it('stops at an undecided commit with the range narrowed so far, never guessing', async () => {
    // 17 commits, first bad 11: bad ok, mid 8 good, mid 12 bad, mid 10 undecided -> first bad in 9..12.
    const { judge, asked } = fakeJudge(11, new Set([10]));
    const result = await bisect(range(17), judge);
    expect(asked).toEqual([16, 8, 12, 10]);
    expect(result.outcome).toEqual({ kind: 'undecided', lastGood: 8, firstBad: 12, undecided: 10 });
    expect(result.tested.at(-1)).toMatchObject({ index: 10, call: 'undecided' });
  });

  it('an undecided bad commit stops at once with the whole range', async () => {
    const { judge } = fakeJudge(3, new Set([5]));
    expect((await bisect(range(6), judge)).outcome).toEqual({
      kind: 'undecided',
      lastGood: 0,
      firstBad: 5,
      undecided: 5,
    });
  });

  it('refuses fewer than two commits (good equal to bad has nothing to search)', async () => {
    expect(() => startSearch(1)).toThrow(/at least 2 commits/);
    expect(() => startSearch(0)).toThrow(/at least 2 commits/);
    await expect(bisect([0], fakeJudge(1).judge)).rejects.toThrow(/good and a bad commit/);
  });

  it('as a step function: estimates the steps left and refuses a call on a commit it did not ask for', () => {
    let s = startSearch(9);
    expect(stepsLeft(s)).toBe(4); // bad, then log2(8)
    expect(nextIndex(s)).toBe(8);
    expect(() => afterCall(s, 4, 'bad')).toThrow(/asked for 8/);
    s = afterCall(s, 8, 'bad');
    expect(nextIndex(s)).toBe(4);
    expect(stepsLeft(s)).toBe(3);
    expect(() => outcomeOf(s)).toThrow(/not finished/);
    s = afterCall(s, 4, 'good');
    s = afterCall(s, nextIndex(s)!, 'good'); // 6
    s = afterCall(s, nextIndex(s)!, 'bad'); // 7
    expect(nextIndex(s)).toBeUndefined();
    expect(stepsLeft(s)).toBe(0);
    expect(outcomeOf(s)).toEqual({ kind: 'found', firstBad: 7, lastGood: 6 });
  });

  it('maps the verdict engine: only a regression is bad, inconclusive is undecided', () => {
    expect(callOf('regression')).toBe('bad');
    expect(callOf('no-change')).toBe('good');
    expect(callOf('improvement')).toBe('good');
    expect(callOf('inconclusive')).toBe('undecided');
  });
});
