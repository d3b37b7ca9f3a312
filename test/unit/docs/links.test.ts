/**
 * The documentation's relative links resolve: for README.md and every docs/*.md, each markdown link or image
 * `[text](target)` outside fenced code blocks and code spans names a file or directory that exists
 * (relative to the page), and a `#anchor` names a heading of the target page (or of the page itself), by
 * GitHub's slug rule with its -1, -2 suffixes for repeated headings. http(s): and mailto: links are not
 * followed. The README, the front door, stays small.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES } from '../../helpers/doc-pages.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const README_MAX_BYTES = 20 * 1024;

const pages = DOC_PAGES;

/** Blanks a match but keeps its newlines, so offsets and line numbers stay those of the page. */
const blank = (s: string) => s.replace(/[^\n]/g, ' ');

/** The page with fenced code blocks and HTML comments blanked out. */
function withoutFences(text: string): string {
  const out: string[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of text.split('\n')) {
    const m = /^ {0,3}(?:[-*+] +|\d+[.)] +)?\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence.char && m[1]!.length >= fence.length && line.trim() === m[1]) {
        fence = undefined;
      }
      out.push(blank(line));
    } else if (m) {
      fence = { char: m[1]![0]!, length: m[1]!.length };
      out.push(blank(line));
    } else {
      out.push(line);
    }
  }
  return out.join('\n').replace(/<!--[\s\S]*?-->/g, blank);
}

/** Also without code spans (which may wrap inside a paragraph, never across a blank line). */
function withoutCode(text: string): string {
  return withoutFences(text)
    .split(/(\n[ \t]*\n)/)
    .map((block) => block.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, blank))
    .join('');
}

/** GitHub's heading anchor: the heading's text, lowercased, punctuation except '-' dropped, spaces to '-'. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, '')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs (repeats get -1, -2, ...) and HTML id/name attributes. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const plain = withoutFences(text);
  for (const m of plain.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of plain.matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]!);
  return anchors;
}

interface Link {
  target: string;
  line: number;
}

/** The relative links and images of a page (not http(s):, mailto:, fenced code or code spans). */
function linksOf(text: string): Link[] {
  const scan = withoutCode(text);
  const lineAt = (offset: number) => scan.slice(0, offset).split('\n').length;
  const links: Link[] = [];
  const inline =
    /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const m of scan.matchAll(inline)) {
    links.push({ target: m[1]!.replace(/^<|>$/g, ''), line: lineAt(m.index) });
  }
  for (const m of scan.matchAll(/^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm)) {
    links.push({ target: m[1]!.replace(/^<|>$/g, ''), line: lineAt(m.index) });
  }
  return links.filter((l) => !/^(?:https?:|mailto:)/i.test(l.target));
}

/** What is wrong with a page's links, one message each naming the page, the link and what is missing. */
function checkPage(page: string, text = readFileSync(path.join(root, page), 'utf8')): string[] {
  const problems: string[] = [];
  for (const { target, line } of linksOf(text)) {
    const where = `${page}:${line}: link '${target}'`;
    if (target === '') {
      problems.push(`${where}: the link has no target`);
      continue;
    }
    const hash = target.indexOf('#');
    const file = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    if (file === '') {
      // an anchor on this page
      if (anchor === '') problems.push(`${where}: empty #anchor`);
      else if (anchor !== undefined && !anchorsOf(text).has(anchor))
        problems.push(`${where}: ${page} has no heading with the anchor #${anchor}`);
      continue;
    }
    const resolved = file.startsWith('/')
      ? path.join(root, file)
      : path.resolve(path.dirname(path.join(root, page)), file);
    const shown = path.relative(root, resolved) || '.';
    if (path.relative(root, resolved).startsWith('..')) {
      problems.push(`${where}: points outside the repository (${resolved})`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${where}: no such file or directory: ${shown}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (anchor === '') {
      problems.push(`${where}: empty #anchor`);
      continue;
    }
    if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
    const anchors = anchorsOf(readFileSync(resolved, 'utf8'));
    if (!anchors.has(anchor)) {
      problems.push(`${where}: ${shown} has no heading with the anchor #${anchor}`);
    }
  }
  return problems;
}

describe('the link checker itself', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Bisection: `pgperf bisect`')).toBe('bisection-pgperf-bisect');
    expect(slug("Calibrate: this runner's noise and a false-alarm check")).toBe(
      'calibrate-this-runners-noise-and-a-false-alarm-check',
    );
    expect(slug('Why same-job A/B stays the default for PRs')).toBe(
      'why-same-job-ab-stays-the-default-for-prs',
    );
    expect(slug('Sweeps: `clients: auto`')).toBe('sweeps-clients-auto');
    expect(slug('The `max_wal_size` — and more')).toBe('the-max_wal_size--and-more');
    expect(slug('See [the store](store.md)')).toBe('see-the-store');
  });

  it('numbers repeated headings -1, -2 and ignores headings in code blocks', () => {
    const anchors = anchorsOf('# A\n\n## Usage\n\n```sh\n# Usage\n```\n\n## Usage\n\n### Usage\n');
    expect([...anchors]).toEqual(['a', 'usage', 'usage-1', 'usage-2']);
  });

  it('finds links and images, also wrapped ones, but not those in code or on the web', () => {
    const text = [
      'See [one](a.md) and ![img](b.png "title") and [two',
      'lines](c.md#x), [web](https://example.org), [mail](mailto:x@example.org).',
      '',
      '`[not](code.md)` and',
      '',
      '```md',
      '[not](fenced.md)',
      '```',
      '[ref]: d.md',
    ].join('\n');
    expect(linksOf(text)).toEqual([
      { target: 'a.md', line: 1 },
      { target: 'b.png', line: 1 },
      { target: 'c.md#x', line: 1 },
      { target: 'd.md', line: 9 },
    ]);
  });

  it('names the page, the link and what is missing', () => {
    const text = [
      '# Synthetic',
      '',
      '[ok](action.md#inputs-and-outputs) [self](#synthetic) [file](../action.yml) [dir](../workloads/)',
      '[gone](missing.md) [bad anchor](action.md#no-such-heading) [self anchor](#nope) [out](../../x.md)',
    ].join('\n');
    expect(checkPage('docs/synthetic.md', text)).toEqual([
      "docs/synthetic.md:4: link 'missing.md': no such file or directory: docs/missing.md",
      "docs/synthetic.md:4: link 'action.md#no-such-heading': docs/action.md has no heading with the anchor #no-such-heading",
      "docs/synthetic.md:4: link '#nope': docs/synthetic.md has no heading with the anchor #nope",
      `docs/synthetic.md:4: link '../../x.md': points outside the repository (${path.resolve(root, '..', 'x.md')})`,
    ]);
  });
});

describe('documentation links', () => {
  it('finds the pages: README.md and docs/*.md', () => {
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]).toBe('README.md');
  });

  it.each(pages)('%s: every relative link and anchor resolves', (page) => {
    expect(checkPage(page), `broken links in ${page}`).toEqual([]);
  });

  it(`README.md is at most ${README_MAX_BYTES} bytes (20 KiB): details belong in docs/`, () => {
    const size = statSync(path.join(root, 'README.md')).size;
    expect(
      size,
      `README.md is ${size} bytes; move detail into docs/ to bring it under ${README_MAX_BYTES}`,
    ).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});
