import { describe, expect, it } from 'vitest';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { compareRun } from '../../../src/core/compare/compare-run.js';
import { renderMarkdownReport } from '../../../src/core/report/markdown.js';
import { reasonPhrase } from '../../../src/core/report/reasons.js';
import { columns } from '../../../src/core/report/table-cells.js';
import { renderTablesHtml } from '../../../src/core/report/table-html.js';
import { buildTables } from '../../../src/core/report/table-model.js';
import { COLLAPSE_DIP, SWEEP_8, syntheticRun } from '../../../testkit/synthetic-run.js';

const HOSTILE_WORKLOAD = `<b>x</b>&"'`;
const HOSTILE_HEAD = '<img src=x onerror=alert(1)>';

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** Every element's tags, checked to nest: throws on a stray or unclosed tag. */
function checkNesting(html: string): string[] {
  const stack: string[] = [];
  const seen: string[] = [];
  for (const [, close, name] of html.matchAll(/<(\/?)([a-z][a-z0-9]*)\b[^>]*>/g)) {
    if (close) {
      expect(stack.pop(), `</${name}>`).toBe(name);
    } else {
      stack.push(name!);
      seen.push(name!);
    }
  }
  expect(stack).toEqual([]);
  return seen;
}

/** The tables' rows as cell texts (unescaped), header rows included. */
function htmlRows(html: string): string[][] {
  return [...html.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map(([, tr]) =>
    [...tr!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map(([, text]) => unescape(text!)),
  );
}

describe('renderTablesHtml', () => {
  const result = syntheticRun({
    seed: 1,
    rounds: 8,
    arms: ['base', HOSTILE_HEAD],
    workloads: { tpcb: [1, 8, 64], [HOSTILE_WORKLOAD]: [4] },
    effect: (arm, w, clients) => (arm !== 'base' && w === 'tpcb' && clients === 64 ? 0.9 : 1),
  });
  const comparison = compareRun(result);
  const html = renderTablesHtml(buildTables(comparison));

  it('escapes every text that comes from users', () => {
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;&amp;&quot;&#39;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain(`data-cell="${'&lt;b&gt;x&lt;/b&gt;&amp;&quot;&#39;'}@4"`);
    const tags = checkNesting(html);
    expect(new Set(tags)).toEqual(
      new Set(['h2', 'h3', 'table', 'caption', 'thead', 'tr', 'th', 'tbody', 'td', 'ul', 'li', 'p']),
    );
  });

  it('shows a table per workload with the model columns, one row per cell, verdicts from the comparison', () => {
    const cells = comparison.comparisons[0]!.cells;
    expect(html.match(/<table /g)).toHaveLength(2);
    const rows = htmlRows(html);
    const headers = rows.filter((r) => r[0] === 'clients');
    expect(headers).toHaveLength(2);
    expect(headers[0]).toEqual(columns({ label: 'TPS', paired: true }).map((c) => c.header));
    const body = rows.filter((r) => r[0] !== 'clients');
    expect(body).toHaveLength(cells.length);
    const verdict = headers[0]!.indexOf('verdict');
    for (const [i, cell] of cells.entries()) {
      expect(body[i]![0]).toBe(String(cell.clients));
      expect(body[i]![verdict]).toContain(reasonPhrase(cell));
      expect(html).toContain(`class="verdict-${cell.verdict}" data-cell="`);
    }
    const c64 = cells.find((c) => c.id === 'tpcb@64')!;
    expect(c64.verdict).toBe('regression');
    expect(body[2]![verdict]).toBe('❌ regression (significant, beyond ±2%)');
    expect(html).toMatch(/<h3>❌ tpcb: regression \(threshold ±2%\)<\/h3>/);
    expect(html).toMatch(/<h2>❌ &lt;img src=x onerror=alert\(1\)&gt; vs base: regression<\/h2>/);
  });

  it('holds the same cells as the markdown table (one model, two markups)', () => {
    const md = renderMarkdownReport({
      result,
      comparison,
      decision: decideRun(result, comparison),
      commentId: 'x',
    });
    const mdRows = md
      .split('\n')
      .filter((l) => /^\| \d/.test(l))
      .map((l) => l.slice(2, -2).split(' | '));
    const body = htmlRows(html).filter((r) => r[0] !== 'clients');
    expect(mdRows).toEqual(body);
  });

  it('marks unstable cells and lists the notes', () => {
    const dip = syntheticRun({
      seed: 7,
      rounds: 10,
      workloads: { ro: SWEEP_8 },
      level: (_, clients) => COLLAPSE_DIP[clients]!,
    });
    const c = compareRun(dip);
    const out = renderTablesHtml(buildTables(c), 3);
    checkNesting(out);
    expect(out).toMatch(/^<h3>/);
    expect(out).toContain('<h4>');
    for (const id of c.comparisons[0]!.unstableCells) {
      expect(out).toMatch(
        new RegExp(`<tr class="verdict-[a-z-]+ unstable" data-cell="${id}">.*⚠️ unstable, not gated</td>`),
      );
    }
    // One note for both unstable cells, each cell's numbers kept.
    expect(out).toMatch(/<ul class="notes">\n<li>32 and 64 clients: unstable: 32, 64 clients lies /);
  });
});
