/**
 * The documentation pages, README.md first, then docs/*.md in name order (paths relative to the root), and
 * their ```yaml blocks: each with the line of its fence and the heading it stands under, and which of them
 * are whole workflows as GitHub reads a file of `.github/workflows/`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const DOC_PAGES = [
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** One ```yaml block of a documentation page. */
export interface YamlBlock {
  page: string;
  /** The line of the opening fence (1-based): line N of `text` is line `line + N` of the page. */
  line: number;
  /** The heading the block stands under ('' before the first heading). */
  section: string;
  /** The block's lines, without the indentation of its fence (a block inside a list item). */
  text: string;
}

/** The ```yaml blocks of a markdown text; headings are read outside fenced blocks only. */
export function yamlBlocksOf(page: string, markdown: string): YamlBlock[] {
  const lines = markdown.split('\n');
  const found: YamlBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!fence) {
      const heading = /^#{1,6} +(.*?)\s*$/.exec(lines[i]!);
      if (heading) section = heading[1]!;
      continue;
    }
    const [, indent, ticks, info] = fence;
    let end = lines.findIndex((l, j) => j > i && l.trim() === ticks);
    if (end < 0) end = lines.length;
    if (info === 'yaml') {
      const text = lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent!) ? l.slice(indent!.length) : l.trimStart()))
        .join('\n');
      found.push({ page, line: i + 1, section, text });
    }
    i = end;
  }
  return found;
}

/** The ```yaml blocks of a documentation page. */
export function yamlBlocks(page: string): YamlBlock[] {
  return yamlBlocksOf(page, readFileSync(path.join(REPO_ROOT, page), 'utf8'));
}

/**
 * Whether a block is a whole workflow: it parses to a mapping with `jobs:`. Fragments (a job's steps, a
 * workload file) are not; a block that does not parse is, so that its error is reported, not skipped.
 */
export function isWorkflow(block: YamlBlock): boolean {
  try {
    const value: unknown = parse(block.text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) && 'jobs' in value;
  } catch {
    return /^jobs:/m.test(block.text);
  }
}

/** The blocks of the pages that are whole workflows. */
export function workflowBlocks(pages: readonly string[] = DOC_PAGES): YamlBlock[] {
  return pages.flatMap(yamlBlocks).filter(isWorkflow);
}
