/**
 * Paths named in prose stay true when folders move. In the comments of src/**.ts, a path whose first part is
 * `src` or the name of a folder under src/ (`core/compare/decision/policy.ts`, `src/drivers/`, `github/...`) names a
 * file or folder that exists: relative to the repository, to src/, or to a folder the commenting file sits
 * in (so `results/metrics.ts` in src/core/compare/ is src/core/results/metrics.ts). A placeholder ends the
 * path (`src/drivers/<tool>/` is src/drivers/); paths of other projects' files (`src/backend/...c`) carry
 * an extension other than .ts/.js/.mjs and are left alone. docs/design.md's code spans that name files of
 * the repository (`src/...`, `scripts/...`, `test/...`, `workloads/...`) exist too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const src = path.join(root, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? [p, ...walk(p)] : [p];
  });
}

const srcEntries = walk(src);
/** The names of the folders under src/ (any depth), and `src` itself: a path starting with one is ours. */
const FOLDER_NAMES = new Set([
  'src',
  ...srcEntries.filter((p) => statSync(p).isDirectory()).map((p) => path.basename(p)),
]);

/** The comment text of a source line, or undefined for a line of code. */
function commentOf(line: string): string | undefined {
  return /^\s*(?:\/\/|\/\*\*?|\*)(.*)$/.exec(line)?.[1] ?? /\s\/\/(.*)$/.exec(line)?.[1];
}

/** The paths a comment names that no file or folder answers to, seen from the file at `file` (under src/). */
function stalePaths(file: string, comment: string): string[] {
  const stale: string[] = [];
  for (const m of comment.matchAll(/(?<![\w./@:-])((?:[A-Za-z_][\w.-]*\/)+[\w.-]*)/g)) {
    const named = m[1]!.replace(/[.,;:]+$/, '');
    const ext = /\.(\w+)$/.exec(path.basename(named))?.[1];
    if (!FOLDER_NAMES.has(named.split('/')[0]!) || (ext !== undefined && !/^(ts|js|mjs)$/.test(ext)))
      continue;
    const bases = [root, src];
    for (let dir = path.dirname(file); dir.startsWith(src); dir = path.dirname(dir)) bases.push(dir);
    const found = bases.some((base) => {
      const at = path.join(base, named);
      return existsSync(at) || existsSync(at.replace(/\.js$/, '.ts'));
    });
    if (!found) stale.push(named);
  }
  return stale;
}

describe('paths named in comments of src/', () => {
  it('are found by the check when they name nothing', () => {
    const file = path.join(src, 'core/compare/verdict.ts');
    expect(
      stalePaths(file, ' the loader (src/config/shipped-workloads.ts) and the renderers (src/report)'),
    ).toEqual(['src/config/shipped-workloads.ts', 'src/report']);
    expect(
      stalePaths(file, ' see results/metrics.ts, core/stats/holm.ts and src/drivers/<tool>/module.ts'),
    ).toEqual([]);
    expect(stalePaths(file, ' "error: patch failed: src/x.c:12", read/write/other, and/or')).toEqual([]);
  });

  it('name files and folders that exist', () => {
    const stale: string[] = [];
    for (const file of srcEntries.filter((p) => p.endsWith('.ts'))) {
      const rel = path.relative(root, file);
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const comment = commentOf(line);
          if (comment === undefined) return;
          for (const named of stalePaths(file, comment)) {
            stale.push(`${rel}:${i + 1}: ${named}`);
          }
        });
    }
    expect(stale).toEqual([]);
  });
});

describe("docs/design.md's code spans", () => {
  it('name files and folders of the repository that exist', () => {
    const text = readFileSync(path.join(root, 'docs/design.md'), 'utf8');
    const spans = [...text.matchAll(/`((?:src|scripts|test|workloads)\/[^`\s]*)`/g)].map((m) => m[1]!);
    expect(spans.length).toBeGreaterThan(20);
    const missing = spans.filter((p) => !existsSync(path.join(root, p.split('<')[0]!)));
    expect(missing).toEqual([]);
  });
});
