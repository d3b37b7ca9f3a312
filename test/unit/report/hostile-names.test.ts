/**
 * Hostile names through every surface that leaves as markdown, HTML or plain text for GitHub: the PR
 * comment and the job summary, the consolidated comment, the wait-event tables, the HTML tables, the
 * nightly summary, the history markdown, the regression issue's title, body and recovery comment, the HTML
 * history pages, the bisect report (markdown and text) and the commit status. Each name (markdown, HTML,
 * mentions, links, bare URLs, backticks, control characters, bidi overrides, a newline starting a block)
 * goes in as workload name, arm label, ref, commit subject, fingerprint, warning or counter name, and each
 * surface is compared with the same surface rendered for a benign name: the same number of tags, table
 * rows, headings, list items and links, no mention GitHub would resolve, no URL its autolinker would
 * link, no control character.
 */
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../../src/core/compare/analysis/compare-run.js';
import type { RunResult } from '../../../src/core/results/result-types.js';
import type { RunDiagnostics } from '../../../src/core/results/diagnostics.js';
import { renderConsolidatedComment } from '../../../src/core/report/markdown/consolidated-markdown.js';
import { NEUTRAL_AT, escapeMarkdown, issueTitleText } from '../../../src/core/report/markdown-escape.js';
import { escapeHtml } from '../../../src/core/report/html-escape.js';
import { renderJobSummary, renderMarkdownReport } from '../../../src/core/report/markdown/markdown.js';
import { renderWaitEventComparison } from '../../../src/core/report/evidence/wait-event-table.js';
import { decideRun } from '../../../src/flows/compare/pipeline/decide-run.js';
import { resolveAnalysis } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { analyseHistory, type HistoryAnalysis } from '../../../src/core/history/history-analysis.js';
import { renderHistoryMarkdown } from '../../../src/core/report/history/history-markdown.js';
import { historySiteData } from '../../../src/core/report/history/page-data.js';
import { renderHistorySite } from '../../../src/core/report/history/page-html.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { judgeHistory } from '../../../src/core/history/nightly-judgement.js';
import {
  renderIncompleteNightly,
  renderNightlySummary,
} from '../../../src/core/report/nightly/nightly-summary.js';
import {
  eventCells,
  issueBody,
  issueTitle,
  recoveryNote,
} from '../../../src/core/report/nightly/regression-event.js';
import { renderBisectText } from '../../../src/core/report/bisect/bisect-text.js';
import type { BisectReport, CommitJudgement } from '../../../src/core/history/bisect-report.js';
import { renderBisectMarkdown } from '../../../src/core/report/bisect/bisect-markdown.js';
import { planIssueActions } from '../../../src/flows/nightly/regression-issues.js';
import { nightlyDecision, type NightlyOutcome } from '../../../src/flows/nightly/nightly-flow.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { WORKLOAD, commitSha, noisyHistory } from '../history/noisy-history.js';

/** The hostile names, each with a case name. */
const HOSTILE: Array<[string, string]> = [
  ['markdown emphasis', '**bold** _it_ ~~s~~ $x$'],
  ['a heading', '# x'],
  ['table pipes', 'a|b'],
  ['an HTML image', '<img src=x onerror=alert(1)>'],
  ['a closing details tag', '</details>'],
  ['a closing script tag', '</script><script>alert(1)</script>'],
  ['a team mention', '@org/team'],
  ['a user mention', 'cc @user'],
  ['an e-mail address', 'x@evil.example'],
  ['a markdown link', '[click](https://evil.example)'],
  ['a javascript link', '[x](javascript:alert(1))'],
  ['a javascript URL', 'javascript:alert(1)'],
  ['a bare URL', 'see https://evil.example/x'],
  ['a www address', 'www.evil.example'],
  ['backticks', '`code` ``x``'],
  ['control characters', 'a\u0000b\u0007c\u001b[31mred\u007fd\u009b'],
  ['bidi overrides', 'safe\u202etxt.exe\u2066x\u2069\u200fy'],
  ['a newline and a heading', 'x\n# heading'],
  ['a newline and a table', 'x\n| a | b |\n|---|---|'],
  ['a setext underline', 'x\r\n==='],
  ['a list item', '- item'],
  ['an ordered list item', '1. item'],
  ['an HTML comment', '<!-- x --> -->'],
];
const BENIGN = 'benign';

const REPO = 'https://github.com/postgres/postgres';
const RUN_URL = `${REPO}/actions/runs/7`;
const ALLOWED_LINKS = [REPO, 'https://ci.example/'];

// ---------------------------------------------------------------- what GitHub would make of the text

/** The text GitHub's filters see after markdown: character references decoded. */
function decoded(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** Control characters, line and paragraph separators, bidi marks and overrides; `\n` is allowed. */
const CONTROL = /(?!\n)[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/** An @ GitHub would resolve as a mention (html-pipeline's rule: start or a non-word character before). */
const MENTION = /(^|[^A-Za-z0-9_])@[A-Za-z0-9]/m;
/** An e-mail address the autolinker would link. */
const EMAIL = /[A-Za-z0-9._+-]@[A-Za-z0-9_-]+\.[A-Za-z0-9]/;
/** A URL or www address the autolinker would link. */
const AUTOLINK = /(https?|ftp):\/\/|www\./gi;

/** What must stay the same whatever the name: the text's structure. */
function markdownStructure(text: string) {
  const lines = text.split('\n');
  return {
    tags: (text.match(/</g) ?? []).length,
    commentEnds: (text.match(/-->/g) ?? []).length,
    headings: lines.filter((l) => /^ {0,3}#{1,6}(\s|$)/.test(l)).length,
    tableRows: lines.filter((l) => l.startsWith('|')).length,
    listItems: lines.filter((l) => /^ *([-+*]|\d{1,9}[.)])(\s|$)/.test(l)).length,
    rules: lines.filter((l) => /^ {0,3}([-=*_])(\s*\1){2,}\s*$/.test(l)).length,
    links: (text.match(/\]\(/g) ?? []).length,
  };
}

/** Groups of consecutive table lines: every row of a table has as many pipes as its header. */
function tablePipes(text: string): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('|')) current.push(line.split('|').length - 1);
    else if (current.length > 0) {
      groups.push(current);
      current = [];
    }
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The checks every markdown surface passes, against the same surface for the benign name. */
function expectSafeMarkdown(text: string, benign: string, name: string): void {
  // Fenced code blocks (the mermaid charts, the Reproduce commands) show their text as it is; what
  // GitHub interprets is the rest. A fence that closed early would leave its remainder outside, here.
  const outsideFences = (t: string) => t.replace(/^(`{3,})[^`\n]*\n[^]*?^\1$/gm, '');
  expect(markdownStructure(outsideFences(text))).toEqual(markdownStructure(outsideFences(benign)));
  for (const pipes of tablePipes(text)) expect(new Set(pipes).size, text).toBe(1);
  // No raw markup of the name (its `<` are counted above with the report's own tags).
  if (/[[`*_|#]/.test(name)) expect(outsideFences(text)).not.toContain(name);
  for (const [, url] of outsideFences(text).matchAll(/\]\(([^)]*)\)/g)) {
    expect(
      ALLOWED_LINKS.some((allowed) => url!.startsWith(allowed)),
      url,
    ).toBe(true);
  }
  // Code spans: never more than the benign report's (the name is never put in one as it is).
  const ticks = (t: string) => (outsideFences(t).match(/`/g) ?? []).length;
  expect(ticks(text)).toBeLessThanOrEqual(ticks(benign));
  // What GitHub's filters see after decoding, outside code (fenced blocks, the mermaid charts, and code
  // spans, whose names mermaidText and codeText reduced): no control character, mention, e-mail address
  // or URL.
  const outsideCode = (t: string) => outsideFences(t).replace(/`[^`\n]*`/g, '``');
  const seen = decoded(outsideCode(text));
  expect(text).not.toMatch(CONTROL);
  expect(seen).not.toMatch(CONTROL);
  expect(seen).not.toMatch(MENTION);
  expect(seen).not.toMatch(EMAIL);
  expect(seen.match(AUTOLINK) ?? []).toEqual(decoded(outsideCode(benign)).match(AUTOLINK) ?? []);
  if (name.includes('@')) expect(text).toContain(NEUTRAL_AT);
}

/** What must stay the same in an HTML page whatever the name. */
function htmlStructure(html: string) {
  return {
    tags: (html.match(/</g) ?? []).length,
    scriptEnds: (html.match(/<\/script/gi) ?? []).length,
    details: (html.match(/<\/details>/g) ?? []).length,
    attributes: (html.match(/"/g) ?? []).length,
  };
}

function expectSafeHtml(html: string, benign: string): void {
  expect(htmlStructure(html)).toEqual(htmlStructure(benign));
  expect(html).not.toMatch(CONTROL);
  for (const [, href] of html.matchAll(/href="([^"]*)"/g)) {
    expect(href, href).toMatch(
      /^(https:\/\/github\.com\/postgres\/postgres\/commit\/[0-9a-f]+|workload-[a-z0-9-]+\.html|index\.html)$/,
    );
  }
}

/**
 * A title or a commit status: plain text of one line without control characters; a title, which lists
 * render, with no mention either (a commit status is never scanned for mentions).
 */
function expectSafePlainText(text: string, options: { mentions: boolean }): void {
  expect(text).not.toMatch(CONTROL);
  expect(text).not.toContain('\n');
  if (!options.mentions) expect(text).not.toMatch(MENTION);
}

// ---------------------------------------------------------------- the surfaces

function comparisonOf(name: string) {
  const result = syntheticRun({
    seed: 1,
    rounds: 8,
    workloads: { [name]: [1, 8], plain: [1, 8] },
    arms: ['base', name],
    effect: (arm, workload) => (arm !== 'base' && workload === name ? 0.8 : 1),
  });
  result.warnings.push(`warning about ${name}`);
  result.samples[0]!.status = 'failed';
  result.samples[0]!.failureReason = `failed: ${name}`;
  const comparison = compareRun(result);
  return { result, comparison, decision: decideRun(result, comparison) };
}

function prComment(name: string): string {
  const { result, comparison, decision } = comparisonOf(name);
  return renderMarkdownReport({
    result,
    comparison,
    decision,
    commentId: 'pgperf',
    base: { label: 'base', sha: commitSha(1), ref: `main ${name}`, chosenBy: `merge-base ${name}` },
    head: { label: name, sha: commitSha(2), ref: `feature/${name}` },
    runUrl: RUN_URL,
  });
}

function jobSummary(name: string): string {
  const { result, comparison, decision } = comparisonOf(name);
  (result as RunResult & { source?: unknown }).source = {
    base: { ref: name, sha: commitSha(1) },
    head: { ref: name, sha: name, chosenBy: name },
  };
  return renderJobSummary({ result, comparison, decision, runUrl: `javascript:${name}` });
}

function consolidated(name: string): string {
  const { result, comparison, decision } = comparisonOf(name);
  return renderConsolidatedComment(
    {
      planId: name,
      count: 3,
      decision,
      classes: [
        {
          fingerprint: name,
          description: `${name} CPU`,
          present: [1, 2],
          missing: [3],
          failed: [],
          verdict: comparison.verdict,
          report: { result, comparison, decision },
        },
      ],
      runUrl: `javascript:alert(1)//${name}`,
    },
    'pgperf',
  );
}

function waitEvents(name: string): string {
  const run = (count: number, blocks: number): RunDiagnostics =>
    ({
      observations: 100,
      transactions: 1000,
      waitEvents: [
        { event: `LWLock:${name}`, count },
        { event: 'IO:DataFileRead', count: 10 },
      ],
      counters: { [`database.${name}`]: blocks, 'database.blks_hit': 500 },
    }) as unknown as RunDiagnostics;
  return renderWaitEventComparison([run(10, 100)], [run(40, 300)]);
}

/** The recorded history with `name` as workload, fingerprint and one stored commit id. */
const histories = new Map<string, HistoryAnalysis>();
function history(name: string): HistoryAnalysis {
  if (!histories.has(name)) {
    const runs = noisyHistory({ clients: [1], stepAt: 26 }).map(
      (run) =>
        JSON.parse(
          JSON.stringify(run)
            .replaceAll(`"${WORKLOAD}"`, JSON.stringify(name))
            .replaceAll('"kvm2-haltpoll-fx"', JSON.stringify(`fp ${name}`))
            .replaceAll(`"${commitSha(10)}"`, JSON.stringify(name)),
        ) as HistoryRun,
    );
    histories.set(name, analyseHistory(runs));
  }
  return histories.get(name)!;
}

function nightlySummary(name: string): string {
  const analysis = history(name);
  const judgement = judgeHistory(analysis);
  const decision = nightlyDecision(
    { analysis, judgement, undecided: [] } as unknown as NightlyOutcome,
    'regression',
  );
  return renderNightlySummary(analysis, judgement, decision, {
    repoUrl: REPO,
    measured: { ref: name, sha: name },
  });
}

function regressionEvent(name: string) {
  const w = judgeHistory(history(name)).events[0]!;
  const cells = eventCells(w, []);
  const links = { repoUrl: REPO, runUrl: RUN_URL };
  return { w, cells, links };
}

function bisectReport(name: string): BisectReport {
  const judged = (deltaPct: number, verdict: CommitJudgement['verdict']): CommitJudgement => ({
    verdict,
    deltaPct,
    ci95: { level: 0.95, achievedLevel: 0.96, lowerPct: deltaPct - 2, upperPct: deltaPct + 2 },
    tries: [
      {
        try: 1,
        rounds: 6,
        verdict,
        deltaPct,
        ci95: null,
        pairs: 6,
        resultsFile: '/out/r.json',
        measureS: 30,
      },
    ],
    build: { cacheHit: false, seconds: 60, installDir: '/cache/x' },
  });
  const commit = (ch: string) => ({ sha: ch.repeat(40), subject: `${ch}: ${name}` });
  const [good, first, bad] = [commit('a'), commit('b'), commit('c')];
  return {
    repo: '/repo',
    good,
    bad,
    walk: 'first-parent',
    candidates: 2,
    cell: { workload: name, clients: 1 },
    analysis: resolveAnalysis({ thresholdPct: 25 }),
    outcome: { kind: 'found', firstBad: first, lastGood: good, judgement: judged(-30, 'regression') },
    tested: [
      { ...bad, index: 2, step: 1, call: 'bad', judgement: judged(-31, 'regression') },
      { ...first, index: 1, step: 2, call: 'bad', judgement: judged(-30, 'regression') },
    ],
    cost: { builds: 2, cacheHits: 0, buildS: 120, measureS: 60, tests: 2, totalS: 200 },
    outDir: `/out/${name}`,
  };
}

/** Every markdown surface: a name in, the markdown out. */
const MARKDOWN_SURFACES: Array<[string, (name: string) => string]> = [
  ['PR comment', prComment],
  ['job summary', jobSummary],
  ['consolidated comment', consolidated],
  ['wait-event tables', waitEvents],
  ['nightly summary', nightlySummary],
  [
    'incomplete nightly summary',
    (name) =>
      renderIncompleteNightly(
        nightlyDecision({ incomplete: name, undecided: [] } as unknown as NightlyOutcome, 'regression'),
        [`⚠️ ${escapeMarkdown(name)}`],
      ),
  ],
  ['history markdown', (name) => renderHistoryMarkdown(history(name), { repoUrl: `${REPO}/` })],
  [
    'regression issue body',
    (name) => {
      const { w, cells, links } = regressionEvent(name);
      return issueBody(w, cells, 'open', links).replace(/<!-- pgperf:[^\n]* -->\n/g, '');
    },
  ],
  [
    'regression issue recovery comment',
    (name) => {
      const { w, cells, links } = regressionEvent(name);
      return recoveryNote(w, cells, links);
    },
  ],
  [
    'bisect comment',
    (name) => renderBisectMarkdown(bisectReport(name), { repoUrl: REPO, runUrl: 'https://ci.example/run/1' }),
  ],
];

const CASES = HOSTILE.flatMap(([payload, name]) =>
  MARKDOWN_SURFACES.map(([surface, render]) => ({ surface, payload, name, render })),
);

describe('hostile names in markdown', () => {
  const benign = new Map(MARKDOWN_SURFACES.map(([surface, render]) => [surface, render(BENIGN)]));
  it.each(CASES)('$surface: $payload', ({ surface, name, render }) => {
    expectSafeMarkdown(render(name), benign.get(surface)!, name);
  });

  it('regression issue body: the markers keep the raw names and cannot end early', () => {
    for (const [, name] of HOSTILE) {
      const { w, cells, links } = regressionEvent(name);
      const body = issueBody(w, cells, 'open', links);
      const markers = body.split('\n').filter((l) => l.startsWith('<!-- pgperf:'));
      for (const m of markers) expect(m.indexOf('-->')).toBe(m.length - 3);
      expect(body).toContain(JSON.stringify(w.id).replace(/</g, '\\u003c').replace(/>/g, '\\u003e'));
    }
  });
});

describe('hostile names in plain text', () => {
  it.each(HOSTILE)('regression issue title: %s', (_, name) => {
    const { w } = regressionEvent(name);
    const title = issueTitle(w);
    expectSafePlainText(title, { mentions: false });
    // A title is not markdown: the name reads as it is (without control characters), no references.
    expect(title).toContain(issueTitleText(name, 80));
    expect(title).not.toMatch(/&#\d+;/);
  });

  it.each(HOSTILE)('regression issue title of the plan (planIssueActions): %s', (_, name) => {
    const [action] = planIssueActions(history(name), [], 'pgperf-bot', { repoUrl: REPO });
    expect(action?.kind).toBe('open');
    if (action?.kind === 'open') {
      expectSafePlainText(action.title, { mentions: false });
      expectSafeMarkdown(
        action.body.replace(/<!-- pgperf:[^\n]* -->\n/g, ''),
        (
          planIssueActions(history(BENIGN), [], 'pgperf-bot', { repoUrl: REPO })[0] as { body: string }
        ).body.replace(/<!-- pgperf:[^\n]* -->\n/g, ''),
        name,
      );
    }
  });

  it.each(HOSTILE)('commit status description: %s', (_, name) => {
    const { decision } = comparisonOf(name);
    expectSafePlainText(decision.status.description, { mentions: true });
    expect(decision.status.description.length).toBeLessThanOrEqual(140);
  });

  it.each(HOSTILE)('bisect text: %s', (_, name) => {
    const text = renderBisectText(bisectReport(name));
    expect(text).not.toMatch(CONTROL);
    expect(text.split('\n')).toHaveLength(renderBisectText(bisectReport(BENIGN)).split('\n').length);
  });
});

describe('hostile names in HTML', () => {
  const assets = { script: '/* uPlot */ window.uPlot = function () {};', css: '.u-legend{}' };
  const site = (name: string) =>
    renderHistorySite(historySiteData(history(name), { repoUrl: `${REPO}/` }), assets);
  const benignSite = site(BENIGN);

  it.each(HOSTILE)('history index page: %s', (_, name) => {
    expectSafeHtml(site(name)[0]!.html, benignSite[0]!.html);
  });

  it.each(HOSTILE)('history workload page: %s', (_, name) => {
    const page = site(name)[1]!;
    expectSafeHtml(page.html, benignSite[1]!.html);
    // The page's data is one script element that reads back the names as they are.
    const data = /<script type="application\/json" id="history-data">([^<]*)<\/script>/.exec(page.html);
    expect(data).not.toBeNull();
    const parsed = JSON.parse(data![1]!) as { charts: Array<{ fingerprint: string }> };
    expect(parsed.charts[0]!.fingerprint).toBe(`fp ${name}`);
    expect(page.html).toContain(`<h1>${escapeHtml(name)}</h1>`);
  });

  it('a repository URL that is not http(s) gives no links', () => {
    const data = historySiteData(history(BENIGN), { repoUrl: 'javascript:alert(1)//' });
    expect(data.repoUrl).toBeNull();
    for (const f of renderHistorySite(data, assets)) expect(f.html).not.toContain('href="javascript');
  });
});

describe('the escaping functions', () => {
  it('escapeMarkdown: references, no mention, no autolink, nothing starts a block', () => {
    expect(escapeMarkdown('cc @org/team')).toBe(`cc ${NEUTRAL_AT}org/team`);
    expect(escapeMarkdown('select-only@8')).toBe('select-only&#64;8');
    expect(escapeMarkdown('https://evil.example')).toBe('https:&#8203;//evil.example');
    expect(escapeMarkdown('www.evil.example')).toBe('www&#8203;.evil.example');
    expect(escapeMarkdown('# x')).toBe('&#35; x');
    expect(escapeMarkdown('- x')).toBe('&#45; x');
    expect(escapeMarkdown('1. x')).toBe('1&#46; x');
    expect(escapeMarkdown('a\u202eb\u0000c\nd')).toBe('a b c d');
  });

  it('escapeHtml: references and no control characters', () => {
    expect(escapeHtml('<b title="x">\u202e\u0007')).toBe('&lt;b title=&quot;x&quot;&gt; ');
  });

  it('issueTitleText: plain text, no mention', () => {
    expect(issueTitleText('a <b>|@team\n# x')).toBe('a <b>|@\u200dteam # x');
  });
});
