import { describe, expect, it } from 'vitest';
import { checkAncestor, checkDistinct, isChain, parseLog } from '../../../src/flows/bisect/commit-range.js';
import { UserError } from '../../../src/core/util/errors.js';

const sha = (c: string) => c.repeat(40);

describe('bisect commit range', () => {
  it('refuses good equal to bad, naming both as given', () => {
    expect(() => checkDistinct({ good: 'v1', bad: 'main' }, sha('a'), sha('a'))).toThrow(UserError);
    expect(() => checkDistinct({ good: 'v1', bad: 'main' }, sha('a'), sha('a'))).toThrow(
      '--good v1 and --bad main are the same commit (aaaaaaa',
    );
    expect(() => checkDistinct({ good: 'v1', bad: 'main' }, sha('a'), sha('b'))).not.toThrow();
  });

  it('refuses a good that is not an ancestor of bad, saying which way round they are', () => {
    expect(() => checkAncestor({ good: 'g', bad: 'b' }, sha('a'), sha('b'), sha('a'))).not.toThrow();
    expect(() => checkAncestor({ good: 'g', bad: 'b' }, sha('a'), sha('b'), sha('b'))).toThrow(
      /--good g \(aaaaaaa\) is not an ancestor of --bad b \(bbbbbbb\) \(it is the other way round: .*swap them\?\)/,
    );
    expect(() => checkAncestor({ good: 'g', bad: 'b' }, sha('a'), sha('b'), sha('c'))).toThrow(
      /not an ancestor of --bad b \(bbbbbbb\) \(they diverge at ccccccc\)/,
    );
  });

  it('parses git log rows and checks they are a first-parent chain from good', () => {
    const rows = parseLog(
      `${sha('b')}\t${sha('a')}\tfirst\n${sha('c')}\t${sha('b')} ${sha('f')}\tmerge: with\ttab\n\n`,
    );
    expect(rows).toEqual([
      { sha: sha('b'), parents: [sha('a')], subject: 'first' },
      { sha: sha('c'), parents: [sha('b'), sha('f')], subject: 'merge: with\ttab' },
    ]);
    expect(isChain(sha('a'), rows)).toBe(true);
    expect(isChain(sha('d'), rows)).toBe(false); // good is not the first commit's parent
    expect(isChain(sha('a'), [rows[1]!])).toBe(false);
    expect(isChain(sha('a'), [])).toBe(false);
  });
});
