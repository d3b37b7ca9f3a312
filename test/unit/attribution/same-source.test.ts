/**
 * Same code from the source alone (core/attribution/same-source.ts): docs and C comments or layout pass,
 * any token changed, any other file, or a file added or removed does not.
 */
import { describe, expect, it } from 'vitest';
import {
  isDocsPath,
  sameCodeBySource,
  withoutComments,
  type ChangedPath,
} from '../../../src/core/attribution/same-source.js';

const C = `/*-------------------------------------------------------------------------
 * postgres.c
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

static int
f(int x)
{
	/* double it */
	return x * 2;		// twice
}
`;

describe('withoutComments', () => {
  it('drops comments, blank lines and layout, keeps every token and line break between them', () => {
    expect(withoutComments(C)).toBe('#include "postgres.h"\nstatic int\nf(int x)\n{\nreturn x * 2;\n}');
  });

  it('keeps comment markers inside string and character literals', () => {
    const text = 'const char *s = "a /* not */ b // nor";\nchar c = \'"\';\nint d; /* gone */';
    expect(withoutComments(text)).toBe('const char *s = "a /* not */ b // nor";\nchar c = \'"\';\nint d;');
  });

  it('a comment moving lines is the same; a changed token or a joined directive line is not', () => {
    const moved = C.replace(' * postgres.c\n', ' * postgres.c\n * pgperf: two more lines\n *\n');
    expect(withoutComments(moved)).toBe(withoutComments(C));
    expect(withoutComments(C.replace('x * 2', 'x * 3'))).not.toBe(withoutComments(C));
    expect(withoutComments('#define A 1\nint b;')).not.toBe(withoutComments('#define A 1 int b;'));
  });
});

describe('sameCodeBySource', () => {
  const texts: Record<string, { before: string; after: string }> = {
    'src/backend/tcop/postgres.c': { before: C, after: C.replace('/* double it */', '/* twice x */\n\n') },
    'src/backend/utils/adt/int.c': { before: C, after: C.replace('x * 2', 'x + x') },
  };
  const read = async (p: string) => texts[p]!;
  const same = (changes: ChangedPath[]) => sameCodeBySource(changes, read);

  it('docs anywhere, and C files changed only in comments, are the same code', async () => {
    expect(isDocsPath('doc/src/sgml/config.sgml')).toBe(true);
    expect(isDocsPath('src/backend/access/nbtree/README')).toBe(true);
    expect(isDocsPath('src/backend/parser/gram.y')).toBe(false);
    await expect(
      same([
        { status: 'M', path: 'doc/src/sgml/config.sgml' },
        { status: 'A', path: 'README.md' },
        { status: 'M', path: 'src/backend/tcop/postgres.c' },
      ]),
    ).resolves.toEqual({ same: true });
  });

  it('a changed token, another kind of file or a C file added is not, naming the file', async () => {
    await expect(
      same([
        { status: 'M', path: 'src/backend/tcop/postgres.c' },
        { status: 'M', path: 'src/backend/utils/adt/int.c' },
      ]),
    ).resolves.toEqual({ same: false, file: 'src/backend/utils/adt/int.c' });
    await expect(same([{ status: 'M', path: 'src/backend/parser/gram.y' }])).resolves.toEqual({
      same: false,
      file: 'src/backend/parser/gram.y',
    });
    await expect(same([{ status: 'A', path: 'src/backend/new.c' }])).resolves.toEqual({
      same: false,
      file: 'src/backend/new.c',
    });
  });
});
