import type { BuildRecord } from '../../src/postgres/builds/build-record.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { describe, expect, it } from 'vitest';
import { compareRun } from '../../src/core/compare/analysis/compare-run.js';
import type { RunComparison } from '../../src/core/compare/comparison-types.js';
import type { ExecutedRun, RunResult } from '../../src/core/results/result-types.js';
import { escapeMarkdown } from '../../src/core/report/markdown-escape.js';
import {
  DEFAULT_COMMENT_MAX_LENGTH,
  TRIM_STEPS,
  commentMarker,
  renderJobSummary,
  renderMarkdownReport,
  type CommitInfo,
  type MarkdownReportInput,
} from '../../src/core/report/markdown/markdown.js';
import { mermaidText, niceCeiling } from '../../src/core/report/markdown/mermaid-chart.js';
import {
  COLLAPSE_DIP,
  SWEEP_8,
  syntheticRun,
  type SyntheticRunOptions,
} from '../../testkit/synthetic-run.js';

const BASE: CommitInfo = {
  label: 'base',
  sha: '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
  ref: 'master',
  chosenBy: 'merge-base of master and PR head',
};
const HEAD: CommitInfo = { label: 'head', sha: '9F8E7D6C5B4A39281706F5E4D3C2B1A098765432', ref: 'feature/x' };

function run(options: Partial<SyntheticRunOptions> & { effect?: SyntheticRunOptions['effect'] }): RunResult {
  return syntheticRun({ seed: 1, rounds: 8, workloads: { tpcb: [1, 8, 64] }, ...options });
}

/** A run with the engine's comparison and decision of it: what every renderer takes besides its own options. */
function judgedRun(result: RunResult, comparison = compareRun(result)) {
  return { result, comparison, decision: decideRun(result, comparison) };
}

/** The markdown report of a run as the engine judges it; pass `comparison` to reuse one already made. */
function markdown(
  result: RunResult,
  options: Omit<MarkdownReportInput, keyof ReturnType<typeof judgedRun>>,
  comparison = compareRun(result),
): string {
  return renderMarkdownReport({ ...judgedRun(result, comparison), ...options });
}

function render(result: RunResult, extra: { maxLength?: number; base?: CommitInfo; head?: CommitInfo } = {}) {
  // Built arms: the report names the commits pgperf built (a prebuilt install is named by its bin dir).
  result.arms[0]!.build ??= { sha: BASE.sha } as BuildRecord;
  result.arms[1]!.build ??= { sha: HEAD.sha } as BuildRecord;
  const comparison = compareRun(result);
  const text = markdown(result, { commentId: 'pgperf', base: BASE, head: HEAD, ...extra }, comparison);
  return { comparison, text, lines: text.split('\n') };
}

/** Groups of consecutive lines that start with "|" (the tables). */
function tables(text: string): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('|')) current.push(line);
    else if (current.length > 0) {
      groups.push(current);
      current = [];
    }
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const pipes = (line: string) => line.split('|').length - 1;

/** The mermaid blocks, each as its lines from the opening to the closing fence. */
function mermaidBlocks(text: string): string[][] {
  const lines = text.split('\n');
  const blocks: string[][] = [];
  lines.forEach((line, i) => {
    if (line !== '```mermaid') return;
    const end = lines.indexOf('```', i + 1);
    blocks.push(lines.slice(i, end + 1));
  });
  return blocks;
}

describe('renderMarkdownReport: verdicts', () => {
  const cases: Array<{
    name: string;
    verdict: RunComparison['verdict'];
    line: RegExp;
    options: Partial<SyntheticRunOptions>;
  }> = [
    {
      name: 'head 10% slower at 64 clients',
      verdict: 'regression',
      line: /^❌ \*\*1 regression\*\*: tpcb at 64 clients, TPS -(9|10|11)\.\d\d% &#91;95% CI -\d+\.\d\d%, -\d+\.\d\d%&#93; · /,
      options: { effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.9 : 1) },
    },
    {
      name: 'head 10% faster everywhere',
      verdict: 'improvement',
      line: /^🚀 \*\*\d+ improvements, no regression\*\*: tpcb at \d+ clients?, TPS \+(9|10|11)\.\d\d% &#91;95% CI \+\d+\.\d\d%, \+\d+\.\d\d%&#93;/,
      options: { effect: (arm) => (arm === 'head' ? 1.1 : 1) },
    },
    {
      name: 'identical arms with little noise',
      verdict: 'no-change',
      line: /^✅ \*\*No change in 8 cells\*\*: every 90% CI inside ±2% · /,
      options: { seed: 3, rounds: 12, noise: 0.005, workloads: { tpcb: SWEEP_8 } },
    },
    {
      name: 'two rounds only',
      verdict: 'inconclusive',
      line: /^❔ \*\*Inconclusive: \d+ of \d+ cells undecided\*\*: most adverse tpcb at \d+ clients?, TPS /,
      options: { rounds: 2, effect: (arm) => (arm === 'head' ? 0.9 : 1) },
    },
    {
      name: 'one cell 6% faster, another 6% slower',
      verdict: 'mixed',
      line: /^❌ \*\*1 regression, 1 improvement\*\*: tpcb at 128 clients, TPS -\d+\.\d\d% /,
      options: {
        seed: 2,
        workloads: { tpcb: SWEEP_8 },
        effect: (arm, _, clients) => (arm !== 'head' ? 1 : clients === 1 ? 1.06 : clients === 128 ? 0.94 : 1),
      },
    },
  ];

  it.each(cases)('$verdict: $name', ({ verdict, line, options }) => {
    const { comparison, lines } = render(run(options));
    expect(comparison.verdict).toBe(verdict);
    expect(lines[0]).toBe('<!-- pgperf:comment-id=pgperf -->');
    expect(lines[1]).toMatch(line);
    expect(lines[1]).toContain(
      'head `9f8e7d6` (feature/x) vs base `1a2b3c4` (master, merge-base of master and PR head)',
    );
  });

  it('uses the cell icons and short reasons in the verdict column', () => {
    const { text } = render(
      run({ effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.9 : 1) }),
    );
    expect(text).toMatch(/^\| 64 \| 8\/8 \| .* \| ❌ regression \(significant, beyond ±2%\) \|$/m);
    expect(text).toMatch(/^\| 1 \| 8\/8 \| .* \| ✅ no change \(90% CI inside ±2%\) \|$/m);
    const small = render(run({ rounds: 2 })).text;
    expect(small).toMatch(/\| ❔ inconclusive \(too few runs[^|]*\) \|$/m);
    expect(small).toMatch(/ @\d+(\.\d)?% \|/); // 2 + 2 runs cannot reach a 95% interval
  });

  it('says when the results are partial', () => {
    const result = run({ effect: (arm) => (arm === 'head' ? 0.9 : 1) });
    result.status = 'interrupted';
    result.stopReason = 'SIGINT after round 8';
    const { lines } = render(result);
    expect(lines[1]).toMatch(
      /^⚠️ \*\*Incomplete\*\*: the run was interrupted \(SIGINT after round 8\); partial results decide nothing · /,
    );
  });

  it('falls back to the arm labels and the build sha without commit info', () => {
    const result = run({ arms: ['pg17', 'patched'] });
    result.arms[1]!.build = { sha: 'abcdef0123456789' } as BuildRecord;
    const text = markdown(result, { commentId: 'x' });
    expect(text.split('\n')[1]).toMatch(
      / · head \*\*patched\*\* `abcdef0` vs base \*\*pg17\*\* \/opt\/pg17\/bin$/,
    );
  });

  it('renders a document with nothing to compare', () => {
    const result = run({ arms: ['base'] });
    const text = markdown(result, { commentId: 'x' });
    expect(text.split('\n')[1]).toBe(
      '⚠️ **Incomplete**: nothing to compare: a comparison needs a base and a head arm; partial results decide nothing',
    );
  });

  it('names a prebuilt install by its bin dir and version, not by a commit it need not be', () => {
    const result = run({});
    result.arms[1]!.serverVersion = 'postgres (PostgreSQL) 18.1 (Debian 18.1-1)';
    const text = markdown(result, { commentId: 'x', base: BASE, head: HEAD });
    expect(text.split('\n')[1]).toMatch(
      / · head \/opt\/head\/bin \(PostgreSQL 18\.1\) vs base \/opt\/base\/bin$/,
    );
    expect(text.split('\n')[1]).not.toContain('9f8e7d6');
  });
});

describe('renderMarkdownReport: tables and charts', () => {
  const result = run({
    workloads: { tpcb: [1, 8, 64], select: [4] },
    effect: (arm, w, clients) => (arm === 'head' && w === 'tpcb' && clients === 64 ? 0.9 : 1),
  });
  const { comparison, text } = render(result);
  const cells = comparison.comparisons[0]!.cells;

  it('renders one table per workload with right-aligned numbers and medians', () => {
    const found = tables(text).filter((t) => t[0]!.startsWith('| clients |'));
    expect(found).toHaveLength(2);
    const [tpcb] = found;
    expect(tpcb![0]).toBe(
      '| clients | n | base TPS (median) | head TPS (median) | per-round % (geo. mean) | delta % [95% CI] | p (adj.) | verdict |',
    );
    expect(tpcb![1]).toBe('|---:|---:|---:|---:|---:|---:|---:|:---|');
    expect(tpcb!.slice(2).map((r) => r.split(' | ')[0])).toEqual(['| 1', '| 8', '| 64']);
    const c64 = cells.find((c) => c.id === 'tpcb@64')!;
    const grouped = (v: number) =>
      v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    expect(tpcb![4]).toContain(`| ${grouped(c64.base.median!)} | ${grouped(c64.head.median!)} |`);
    expect(text).toMatch(/^### ❌ tpcb: regression \(threshold ±2%\)$/m);
    expect(text).toMatch(/^### ✅ select: no change \(threshold ±2%\)$/m);
  });

  it('draws a mermaid xychart per workload with more than one client count', () => {
    const blocks = mermaidBlocks(text);
    expect(blocks).toHaveLength(1); // select has a single client count
    const block = blocks[0]!;
    expect(block[0]).toBe('```mermaid');
    expect(block.find((l) => !l.startsWith('%%') && l !== '```mermaid')).toBe('xychart-beta');
    expect(block).toContain('  title "tpcb: median TPS"');
    expect(block).toContain('  x-axis "clients" ["1", "8", "64"]');
    const medians = (arm: 'base' | 'head') =>
      `  line [${['tpcb@1', 'tpcb@8', 'tpcb@64'].map((id) => cells.find((c) => c.id === id)![arm].median!.toFixed(1)).join(', ')}]`;
    const lines = block.filter((l) => l.startsWith('  line '));
    expect(lines).toEqual([medians('base'), medians('head')]);
    expect(block.at(-1)).toBe('```');
    // No thousands separators inside the chart.
    for (const l of lines) expect(l).toMatch(/^ {2}line \[\d+\.\d(, \d+\.\d)*\]$/);
    // The sentence above says which line is which.
    const legend = text.split('\n')[text.split('\n').indexOf('```mermaid') - 2]!;
    expect(legend).toMatch(
      /the \*\*blue\*\* line \(first\) is base, the \*\*orange\*\* line \(second\) is head\./,
    );
  });

  it('lists the collapsed details', () => {
    for (const summary of [
      'Environment',
      'Builds',
      'Settings',
      'Rounds and order',
      'Raw samples (TPS per run)',
    ]) {
      expect(text).toContain(`<details><summary>${summary}</summary>`);
    }
    const raw = cells.find((c) => c.id === 'tpcb@64')!;
    const values = result.samples
      .filter((s) => s.workload === 'tpcb' && s.clients === 64 && s.arm === 'head')
      .map((s) => s.metrics.tps!.toFixed(1));
    expect(values).toHaveLength(raw.head.n);
    expect(text).toContain(`| tpcb | 64 | head | ${values.join(', ')} |`);
  });

  it('keeps chart values and titles inside the mermaid grammar', () => {
    expect(mermaidText('a"b%%{init}%%\nc')).toBe('a_b___init___ c');
    expect(niceCeiling(55_966)).toBe(100_000);
    expect(niceCeiling(139_955)).toBe(200_000);
    expect(niceCeiling(1800)).toBe(2000);
    expect(niceCeiling(0)).toBe(1);
  });

  it('names the machine controls held over the run in the environment table', () => {
    const result = run({});
    result.environment.controls = [
      {
        control: 'governor',
        file: '/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor',
        from: 'schedutil',
        to: 'performance',
      },
      { control: 'cpuDmaLatency', file: '/dev/cpu_dma_latency', to: '0 µs' },
    ];
    expect(render(result).text).toContain(
      '| controls (restored after) | governor performance; cpuDmaLatency 0 µs |',
    );
  });

  it('shows peak, knee and collapse per workload, and flags cells in a collapse region as not gated', () => {
    const dip = COLLAPSE_DIP;
    const { text, comparison } = render(
      run({
        rounds: 12,
        workloads: { ro: SWEEP_8 },
        level: (_, clients) => dip[clients]!,
        effect: (arm, _, clients) => (arm === 'head' && clients === 32 ? 0.9 : 1),
      }),
    );
    expect(comparison.comparisons[0]!.unstableCells).toEqual(['ro@32', 'ro@64']);
    expect(text).toMatch(
      /Curve: base peak 2\d\d,\d{3} TPS at 16 clients, knee 16, collapse 32–64 \(3\d% down, recovers at 128\)/,
    );
    const row32 = text.split('\n').find((l) => l.startsWith('| 32 |'))!;
    expect(row32).toMatch(/regression.*unstable, not gated/);
    // Both unstable cells in one note, each cell's numbers kept, in the order of the clients.
    expect(text).toMatch(
      /- 32 and 64 clients: unstable: 32, 64 clients lies in a throughput collapse of base \(3\d% below its peak at 16 clients, recovering at 128\)/,
    );
    // The workload's heading follows the gating cells only.
    expect(text).not.toMatch(/### .* ro: regression/);
  });
});

describe('renderMarkdownReport: escaping', () => {
  const evilWorkload = 'a|b<script>alert(1)</script>';
  const evilRef = 'feature/<img src=x onerror=alert(1)>';
  const result = run({
    workloads: { [evilWorkload]: [1, 8], plain: [1, 8] },
    arms: ['base', 'he|ad`*x*'],
    effect: (arm) => (arm === 'base' ? 1 : 0.9),
  });
  result.warnings.push('pgbench said | <b>bold</b>\nand [a link](http://x) with `code`');
  result.samples[0]!.status = 'failed';
  result.samples[0]!.failureReason = 'aborted | <iframe>';
  result.arms[1]!.build = { sha: 'not a sha <b>' } as BuildRecord; // built: the report names the ref
  const text = markdown(result, {
    commentId: 'pr-1 --> <script>',
    base: { label: 'base', ref: 'main' },
    head: { label: 'he|ad`*x*', ref: evilRef, sha: 'not a sha <b>' },
  });

  it('leaves no raw HTML from user text (a fenced code block shows it as text)', () => {
    // The Reproduce block quotes the workload as it ran, inside a fence nothing in it can close.
    const outsideFences = text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1$/gm, '');
    expect(outsideFences).not.toMatch(/<script|<img|<iframe|<b>/i);
    expect(text).toContain('a&#124;b&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).toContain('feature/&lt;img src=x onerror=alert(1)&gt;');
    expect(text).toContain(
      'pgbench said &#124; &lt;b&gt;bold&lt;/b&gt; and &#91;a link&#93;(http:&#8203;//x) with &#96;code&#96;',
    );
  });

  it('keeps every table intact: the same number of pipes in every row', () => {
    const found = tables(text);
    expect(found.length).toBeGreaterThanOrEqual(6);
    for (const t of found) {
      const columns = pipes(t[0]!);
      for (const line of t) expect(pipes(line), line).toBe(columns);
    }
  });

  it('keeps user text out of the mermaid block', () => {
    const block = mermaidBlocks(text).map((b) => b.join('\n'));
    expect(block).toHaveLength(2);
    expect(block[0]).toContain('title "a_b_script_alert(1)_/script_: median TPS"');
    for (const b of block)
      expect(b.slice('```mermaid'.length, -3).replace(' --> ', ' ')).not.toMatch(/[<>|`]/);
  });

  it('escapes the comment id in the marker', () => {
    const marker = text.split('\n')[0]!;
    expect(marker).toBe(commentMarker('pr-1 --> <script>'));
    expect(marker.indexOf('-->')).toBe(marker.length - 3);
    expect(marker).toBe('<!-- pgperf:comment-id=pr-1%20--%3E%20%3Cscript%3E -->');
  });

  it('escapes markdown and HTML in inline text', () => {
    expect(escapeMarkdown('*a* _b_ ~c~ $x$ \\ & \r\n')).toBe(
      '&#42;a&#42; &#95;b&#95; &#126;c&#126; &#36;x&#36; &#92; &amp;  ',
    );
    expect(escapeMarkdown('abcdef', 4)).toBe('abc…');
  });
});

describe('commentMarker and renderJobSummary', () => {
  it('puts the marker first and keeps plain ids readable', () => {
    expect(commentMarker('pgperf-main')).toBe('<!-- pgperf:comment-id=pgperf-main -->');
    expect(commentMarker('a')).not.toBe(commentMarker('b'));
    expect(() => commentMarker(' ')).toThrow(/must not be empty/);
  });

  it('renders the job summary as the same report without the marker', () => {
    const result = run({ effect: (arm) => (arm === 'head' ? 0.9 : 1) });
    const comparison = compareRun(result);
    const comment = markdown(result, { commentId: 'pgperf', base: BASE, head: HEAD }, comparison);
    const summary = renderJobSummary({
      ...judgedRun(result, comparison),
      base: BASE,
      head: HEAD,
    });
    expect(summary).not.toContain('<!--');
    expect(summary.split('\n')[0]).toMatch(/^❌ \*\*\d+ regressions?\*\*: /);
    expect(comment).toBe(`${commentMarker('pgperf')}\n${summary}`);
  });
});

describe('renderMarkdownReport: size', () => {
  // 8 workloads x 8 client counts = 64 cells, 30 rounds, 2 arms, warm-ups, facts and long warnings.
  const workloads = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`workload-${i + 1}`, SWEEP_8]));
  const huge = syntheticRun({
    seed: 7,
    rounds: 30,
    workloads,
    effect: (arm, w, clients) => (arm === 'head' && w === 'workload-3' && clients >= 32 ? 0.93 : 1),
  });
  huge.environment = {
    hostname: 'runner',
    os: 'Debian GNU/Linux 12 (bookworm)',
    kernel: '6.1.0-31-amd64',
    arch: 'x64',
    cpuModel: 'AMD EPYC 7763 64-Core Processor',
    cpuCount: 128,
    memoryBytes: 512 * 2 ** 30,
    facts: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`fact${i}`, 'x'.repeat(200)])),
    nodeVersion: 'v20.19.0',
    settingsHash: 'abc123',
  };
  const executed: ExecutedRun[] = [];
  for (const s of huge.samples) {
    if (s.round === 1) executed.push({ ...pick(s), kind: 'warmup', attempt: 1, status: 'ok' });
    executed.push({ ...pick(s), kind: 'measured', attempt: 1, status: 'ok' });
  }
  huge.plan.executed = executed;
  for (let i = 0; i < 30; i++) huge.warnings.push(`warning ${i}: ${'long | text <x> '.repeat(100)}`);
  const comparison = compareRun(huge);
  const full = markdown(huge, { commentId: 'c', maxLength: Infinity }, comparison);
  const tableLines = full.split('\n').filter((l) => l.startsWith('| ') && /^\| \d+ \| \d+\/\d+ \|/.test(l));

  it('would exceed the limit in full', () => {
    expect(full.length).toBeGreaterThan(2 * DEFAULT_COMMENT_MAX_LENGTH);
    expect(tableLines).toHaveLength(64);
    expect(full).not.toContain('Trimmed');
  });

  it('trims the details, keeps the verdict and the tables, and says what was trimmed', () => {
    const text = markdown(
      huge,
      { commentId: 'c', runUrl: 'https://github.com/o/r/actions/runs/1' },
      comparison,
    );
    expect(text.length).toBeLessThanOrEqual(DEFAULT_COMMENT_MAX_LENGTH);
    expect(text.split('\n').slice(0, 2)).toEqual(full.split('\n').slice(0, 2));
    expect(text.split('\n')[1]).toMatch(/^❌ \*\*\d+ regressions?\*\*: workload-3 at \d+ clients/);
    for (const line of tableLines) expect(text).toContain(line);
    expect(text).toMatch(
      /✂️ \*\*Trimmed to fit in 65,000 characters \(a GitHub comment holds at most 65,536\):\*\* raw samples omitted(, [^;]+)?; see the results artifact of the \[workflow run\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/1\)\./,
    );
    expect(text).toContain('<details><summary>Raw samples (omitted)</summary>');
    expect(text).toContain('_Raw samples omitted for size: see the results artifact');
    expect(mermaidBlocks(text)).toHaveLength(8);
  });

  it('trims raw samples first, then the execution order, then the environment facts', () => {
    // The order first; TRIM_STEPS continues it.
    const whats = ['raw samples omitted', 'execution order omitted', 'environment facts omitted'];
    expect(TRIM_STEPS.map((s) => s.what).slice(0, 3)).toEqual(whats);
    let previous = 0;
    for (const maxLength of [60_000, 40_000, 30_000, 25_000, 20_000]) {
      const text = markdown(huge, { commentId: 'c', maxLength }, comparison);
      expect(text.length).toBeLessThanOrEqual(maxLength);
      const note = /Trimmed to fit in [^:]+:\*\* ([^;]*);/.exec(text);
      expect(note, `note at ${maxLength}`).not.toBeNull();
      const trimmed = note![1]!.split(', ');
      expect(trimmed.slice(0, 3)).toEqual(whats.slice(0, trimmed.length));
      expect(trimmed.length).toBeGreaterThanOrEqual(previous);
      previous = trimmed.length;
      for (const line of tableLines) expect(text).toContain(line);
    }
    expect(previous).toBeGreaterThanOrEqual(3);
  });

  it('cuts at a line boundary as a last resort and says so', () => {
    const text = markdown(huge, { commentId: 'c', maxLength: 3000 }, comparison);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text.split('\n')[1]).toBe(full.split('\n')[1]);
    expect(text).toMatch(/✂️ \*\*Cut to fit in 3,000 characters .*\*\*: the tables are incomplete/);
  });

  it('keeps every detail in the job summary', () => {
    const summary = renderJobSummary(judgedRun(huge, comparison));
    expect(new TextEncoder().encode(summary).length).toBeLessThanOrEqual(1_000_000);
    expect(summary).toBe(full.slice(full.indexOf('\n') + 1));
  });
});

function pick(s: { round: number; workload: string; clients: number; arm: string }) {
  return { round: s.round, workload: s.workload, clients: s.clients, arm: s.arm };
}

describe('mentions in untrusted text', () => {
  it('an @name in user text cannot ping anyone', async () => {
    const { escapeMarkdown } = await import('../../src/core/report/markdown-escape.js');
    expect(escapeMarkdown('fix/@postgres/committers')).toBe('fix/&#64;&#8205;postgres/committers');
  });
});
