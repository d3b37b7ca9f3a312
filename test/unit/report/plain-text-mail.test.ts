/**
 * The plain-text mail for a reply on pgsql-hackers (`pgperf compare --format mail`, issue #32): the verdict
 * first, in the decision's own words; what was compared, with the commitfest entry; the deciding cells with
 * delta, the interval's level and the test, cells alike but for their client count said once; the steady
 * costs per transaction; the changed plans; the compiled code; a Reproduce block that bash reads exactly as
 * the unfolded one; the link to the run: every finding the terminal shows of those cells (#39 item 5).
 * Every line printable ASCII and at most 72 columns, for every captured results file
 * (test/fixtures/results/README.md says where each comes from) under each fail-on, and for long workload
 * names, paths, URLs and hostile characters.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FailOn } from '../../../src/core/compare/decision/policy.js';
import { steadySummary } from '../../../src/core/compare/evidence/steady-summary.js';
import { decisionLine, renderComparisonText } from '../../../src/core/report/terminal/comparison-text.js';
import {
  MAIL_WIDTH,
  asciiText,
  foldShell,
  renderMailReport,
  wrap,
} from '../../../src/core/report/mail/plain-text-mail.js';
import { reproductions } from '../../../src/core/report/reproduce.js';
import { clientsLabel } from '../../../src/core/report/table-cells.js';
import type { PlansRecord } from '../../../src/core/results/plans.js';
import type {
  BuildRecord,
  CompiledCodeComparison,
  RunResult,
} from '../../../src/core/results/result-types.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { analyse } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { reportInputOf } from '../../../src/flows/compare/pipeline/report-input.js';
import { readResults } from '../../../src/store/read-results.js';
import { instructionRecord } from '../../../testkit/instruction-record.js';
import { plansRecord, SELECT } from '../../../testkit/plans-record.js';
import { document, syntheticRun } from '../../../testkit/synthetic-run.js';
import { ROOT } from '../../helpers/cli.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/results');
const CAPTURED = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
const tmp = useTmpDir('pgperf-unit-mail-');

/** The mail for a results document, analysed and decided as `pgperf compare` does. */
function mail(result: RunResult, failOn?: FailOn): { text: string; lines: string[]; headline: string } {
  const input = reportInputOf(result, analyse(result), failOn ? { failOn } : {});
  const text = renderMailReport(input);
  return { text, lines: text.split('\n'), headline: asciiText(decisionLine(input.decision)) };
}

/** The terminal's report of the same document, as `pgperf compare` prints it. */
function terminal(result: RunResult): string {
  const c = analyse(result);
  const { decision } = reportInputOf(result, c);
  const steady = steadySummary(result);
  return renderComparisonText(
    c,
    decision,
    result.baseline,
    steady,
    result.clients,
    result.source,
    result.instructions,
  );
}

/** A run of `workloads` whose head has base's compiled code: nothing measured, every cell decided by it. */
function sameCode(workloads: Record<string, number[]>): RunResult {
  const code: CompiledCodeComparison = {
    head: 'head',
    identical: true,
    files: 1234,
    differingFiles: [],
    differingCount: 0,
  };
  return { ...document(['base', 'head'], workloads, 0, []), compiledCode: [code] };
}

/** Text with its line breaks and runs of spaces as one space: what a wrapped line says. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** The lines that break the mail's rules: longer than 72 columns, or not printable ASCII. */
function badLines(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .filter((line) => line.length > MAIL_WIDTH || !/^[\x20-\x7e]*$/.test(line));
}

/** The first paragraph: the verdict, wrapped. */
function firstParagraph(lines: string[]): string {
  return lines.slice(0, lines.indexOf('')).join(' ');
}

const BASE_SHA = 'a'.repeat(40);
const HEAD_SHA = 'b'.repeat(40);
/** head's compiled code: bin/postgres differs from base's, in two functions. */
const FUNCTIONS = { changed: ['int4in', 'ExecInitNode'], changedCount: 2, total: 23456 };
const FILES = { files: 1234, differingFiles: ['bin/postgres'], differingCount: 1 };
const DIFFERENT: CompiledCodeComparison = {
  head: 'head',
  identical: false,
  ...FILES,
  serverFunctions: FUNCTIONS,
};

interface RunOptions {
  name?: string;
  repo?: string;
  runUrl?: string;
  /** Arms given as bin dirs (not built by pgperf): the Reproduce block names them. */
  binDirs?: [string, string];
  headSettings?: Record<string, string>;
}

const seqScanPlans = (workload: string): PlansRecord => plansRecord(workload);

/**
 * Head loses 10% of its TPS at 64 clients and counts 15% more instructions per transaction at 1 client;
 * built from two commits (a patch on head: commitfest entry 4711), its WAL, buffers and backend CPU
 * recorded in every run, its compiled code differing in two functions, its plan of the select changed to
 * a sequential scan, its run URL recorded.
 */
function regressedRun(o: RunOptions = {}): RunResult {
  const name = o.name ?? 'select-only';
  const result = syntheticRun({
    seed: 5,
    rounds: 10,
    workloads: { [name]: [1, 8, 64] },
    effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.9 : 1),
  });
  const spec = 'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 8, 64]\nscale: 3\nduration: 30\n';
  result.workloads[name] = { ...parseWorkload(spec, 'w.yml'), name };
  result.samples = result.samples.map((s) => ({
    ...s,
    metrics: {
      ...s.metrics,
      walBytesPerTx: s.arm === 'head' ? 1100 : 1000,
      bufferHitsPerTx: 4,
      backendCpuUsPerTx: 31,
    },
  }));
  const build = (sha: string, patches: BuildRecord['patches']) =>
    ({ repo: o.repo ?? '/runner/cache/mirror', ref: 'master', sha, patches }) as unknown as BuildRecord;
  result.arms[0]!.build = build(BASE_SHA, []);
  result.arms[1]!.build = build(HEAD_SHA, [
    { file: '/runner/work/v3-0001-btree.patch', sha256: 'c'.repeat(64) },
  ]);
  if (o.binDirs) {
    for (const [i, arm] of result.arms.entries()) {
      delete arm.build;
      arm.binDir = o.binDirs[i]!;
    }
  }
  result.arms[1]!.settingOverrides = o.headSettings ?? {};
  result.source = {
    repository: 'postgres/postgres',
    runUrl: o.runUrl ?? 'https://github.com/postgres/postgres/actions/runs/7',
    commitfest: { id: 4711, branch: 'cf/4711' },
  };
  result.analysis = { alpha: 0.05, thresholdPct: 2, metric: 'tps' };
  result.compiledCode = [DIFFERENT];
  result.instructions = instructionRecord({ workload: name, seed: 5, effect: 0.15, cv: 0.0005 });
  result.plans = seqScanPlans(name);
  return result;
}

const LONG_NAME = `select-only-${'with-a-name-longer-than-a-mail-line-'.repeat(3)}end`;
const LONG_URL = `https://github.com/postgres/postgres/actions/runs/${'1234567890'.repeat(9)}/job/42?pr=1&x=y`;
const LONG_REPO = `https://git.example.org/${'a-very-long-group-name/'.repeat(5)}postgres.git`;
const LONG_BIN = `/opt/${'p'.repeat(80)}/bin`;

/** The variants of regressedRun the rules must hold for. */
const VARIANTS: Array<[string, RunOptions]> = [
  ['plain names', {}],
  ['a long workload name', { name: LONG_NAME }],
  ['a long run URL', { runUrl: LONG_URL }],
  ['a long repository URL', { repo: LONG_REPO }],
  ['long bin dirs', { binDirs: [LONG_BIN, `${LONG_BIN}2`] }],
  [
    'a long setting with quotes and spaces',
    { headSettings: { application_name: `it's ${'a b c '.repeat(20)}` } },
  ],
  ['everything long', { name: LONG_NAME, runUrl: LONG_URL, repo: LONG_REPO }],
  ['a hostile name', { name: 'r\u00e9sum\u00e9 \u202eevil\u001b[31m \u{1f680} \u00b1' }],
];

/** The Reproduce block's script as a reader copies it: from its `cat` line to the blank line after it. */
function scriptOf(lines: string[]): string {
  const start = lines.findIndex((l) => l.startsWith('cat > '));
  expect(start).toBeGreaterThan(0);
  const end = lines.indexOf('', start);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** bash runs the script with `pgperf` printing its arguments; returns them and the workload file it wrote. */
function bash(script: string): { args: string[]; workload: unknown } {
  const dir = mkdtempSync(path.join(tmp(), 'sh-'));
  const args = execFileSync(
    'bash',
    ['-c', `set -euo pipefail\npgperf() { printf '%s\\n' "$@"; }\n${script}`],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  )
    .trimEnd()
    .split('\n');
  const file = args[args.indexOf('--workload') + 1]!;
  return { args, workload: parse(readFileSync(path.join(dir, file), 'utf8')) };
}

describe('the plain-text mail', () => {
  it.each(CAPTURED)(
    '%s: the verdict first, the deciding cells with interval and test, Reproduce',
    async (file) => {
      const result = await readResults(path.join(FIXTURES, file));
      const { lines, headline } = mail(result);
      // The decision's headline, said first (wrapped, never decided again).
      expect(lines[0]).toMatch(/^(PASSED|FAILED|PENDING|INCOMPLETE): /);
      expect(firstParagraph(lines)).toBe(headline);
      expect(lines).toContain(lines.find((l) => /^Deciding cells \(\d+ of \d+/.test(l)));
      // Each cell: delta and interval with its level, then its verdict, then the interval's test.
      const cell = lines.findIndex((l) =>
        /^- .* at \d+ clients?, TPS [+-]\d+\.\d\d% \[\d+(\.\d)?% CI /.test(l),
      );
      expect(cell).toBeGreaterThan(0);
      expect(lines[cell + 2]).toMatch(/^ {2}\d+(\.\d)?% CI of the (paired|unpaired) Hodges-Lehmann shift; /);
      expect(lines.some((l) => /^Reproduce /.test(l))).toBe(true);
      expect(lines.some((l) => l.startsWith('pgperf run'))).toBe(true);
    },
  );

  it('the captured smoke/select-only run, as it reads', async () => {
    const result = await readResults(path.join(FIXTURES, 'pgperf-15-smoke-select-only.json'));
    const { text, lines } = mail(result);
    expect(lines.slice(0, 3)).toEqual([
      'PENDING: Inconclusive: 8 of 8 cells undecided: most adverse select-only',
      'at 1 client, TPS -17.44% [75% CI -20.54%, -11.13%]; no regression found;',
      'more rounds would decide',
    ]);
    expect(text).toContain(
      [
        'Deciding cells (8 of 8, the 6 most adverse shown):',
        '- select-only at 1 client, TPS -17.44% [75% CI -20.54%, -11.13%]',
        '  inconclusive (too few runs, CI level not reached, CI wider than +/-2%)',
        '  75% CI of the paired Hodges-Lehmann shift; Wilcoxon signed-rank test',
        '  over 3 rounds: p 0.25, Holm-adjusted 1',
      ].join('\n'),
    );
    expect(text).toContain("\ncat > reproduce-select-only.yml <<'PGPERF_WORKLOAD'\n");
    expect(text).toContain(
      '\n  --arm head=/usr/lib/postgresql/15/bin \\\n  --set head:synchronous_commit=off \\\n',
    );
    // Nothing the run did not record: no steady costs, no compiled code, no run URL.
    expect(text).not.toMatch(/Per transaction|Compiled code|Full report/);
  });

  it('a regression: fails the gate, steady costs and instructions, compiled code, Reproduce, the run', () => {
    const { text, lines, headline } = mail(regressedRun());
    // The worst first: instructions +15% at 1 client, then TPS -10% at 64.
    expect(lines[0]).toMatch(/^FAILED: 2 regressions: select-only at 1 client, instr\/tx \+1\d\.\d\d%/);
    expect(firstParagraph(lines)).toBe(headline);
    expect(text).toMatch(
      /\n- select-only at 64 clients, TPS -\d+\.\d\d% \[95% CI -\d+\.\d\d%, -\d+\.\d\d%\]\n {2}regression \(significant, beyond \+\/-2%\); fails the gate \(fail-on\n {2}regression\)\n {2}95% CI of the paired Hodges-Lehmann shift; Wilcoxon signed-rank test\n {2}over 10 rounds: p /,
    );
    // The instruction cell is decided by its own rule: no interval, the evidence named.
    expect(text).toMatch(
      /\n- select-only at 1 client, instr\/tx \+1\d\.\d\d%\n {2}regression \(counts beyond/,
    );
    expect(text).toMatch(/\n {2}decided by instruction counts, 3 repetitions\n/);
    expect(text).toContain('Per transaction, base -> head (medians over the runs):');
    // One metric's "base -> head (change)" stays on one line.
    expect(text).toContain(
      '\n- select-only@64: WAL bytes/tx 1,000 -> 1,100 (+10.0%);\n  buffer hits/tx 4 -> 4 (+0.0%); backend CPU/tx 31 -> 31 us (+0.0%)\n',
    );
    expect(text).toMatch(
      /\n- select-only@1: WAL bytes\/tx .*\n.*\n {2}instr\/tx 4\d,\d{3} -> 5\d,\d{3} \(\+1\d\.\d\d%\)\n/,
    );
    expect(text).toContain(
      'Compiled code, head vs base: 1 of 1,234 files differ (bin/postgres); in\n  bin/postgres the code of 2 of 23,456 functions: int4in, ExecInitNode\n',
    );
    expect(text).toContain(
      `\n  --base ${BASE_SHA} \\\n  --head ${HEAD_SHA} \\\n  --head-patch v3-0001-btree.patch \\\n`,
    );
    expect(text.endsWith('\nFull report: <https://github.com/postgres/postgres/actions/runs/7>\n')).toBe(
      true,
    );
    // Each part in the order a reply reads it.
    const order = [
      'Deciding cells',
      'Per transaction',
      'Plan changed',
      'Compiled code',
      'Reproduce',
      'Full report',
    ];
    const at = order.map((p) => text.indexOf(`\n${p}`));
    expect(at.every((x) => x > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('the same compiled code: the pass the decision says, its cells said once, the code line', () => {
    const clients = [1, 2, 4, 8, 16, 32, 64, 128];
    const { text } = mail(sameCode({ 'select-only': clients }));
    expect(text).toMatch(
      /^PASSED: No change in 8 cells: same compiled code as base, same settings:\nnothing measured\n/,
    );
    // Eight cells alike but for their client count: one entry, every cell counted and named.
    expect(text).toContain(
      [
        'Deciding cells (8 of 8):',
        '- select-only at 1, 2, 4, 8, 16, 32, 64 and 128 clients, TPS: no data',
        '  no change (same compiled code, not measured)',
        '  decided by same compiled code',
        '',
      ].join('\n'),
    );
    expect(text.split('no data').length - 1).toBe(1);
    expect(text).toContain('\nCompiled code, head vs base: the same compiled code (1,234 files)\n');
    // Every cell shown, every cell reproduced.
    expect(flat(text)).toContain(` Reproduce select-only at ${clientsLabel(clients)}, in a clone`);
  });

  it('cells alike are said once and the heading counts cells: the shown ones, "most adverse" only if first', () => {
    const workloads = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((w) => [w, [1, 2]]));
    const result = sameCode(workloads);
    const { lines } = mail(result);
    // Seven entries of two cells each; six shown: twelve cells, the first twelve.
    expect(lines).toContain('Deciding cells (14 of 14, the 12 most adverse shown):');
    expect(lines.filter((l) => l.startsWith('- '))).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((w) => `- ${w} at 1 and 2 clients, TPS: no data`),
    );
    // A decision that orders the alike cells apart: the entries still stand where their first cell does,
    // but the twelve shown are no longer the twelve most adverse (g@1 is seventh and not shown).
    const input = reportInputOf(result, analyse(result));
    const byClients = [...input.decision.cells].sort((x, y) => x.clients - y.clients);
    const text = renderMailReport({ ...input, decision: { ...input.decision, cells: byClients } });
    expect(text).toContain('\nDeciding cells (14 of 14, 12 shown, the most adverse first):\n- a at 1 and 2');
    expect(text).not.toContain('- g at');
  });

  it('names the commitfest entry head was built from on the Compared line, as the terminal does', () => {
    const result = regressedRun();
    const { text } = mail(result);
    expect(text).toContain(
      "\nCompared: 'head', commitfest entry 4711 (cf/4711), vs base 'base' (TPS,\n  higher is better; instr/tx, lower is better)\n",
    );
    delete result.source!.commitfest;
    expect(mail(result).text).toContain("\nCompared: 'head' vs base 'base' (TPS, higher is better;");
  });

  it('the changed plans and the cost per call, as the terminal says them, folded to the width', () => {
    const { text } = mail(regressedRun());
    expect(text).toContain(
      [
        '',
        'Plan changed: SELECT abalance FROM pgbench_accounts WHERE aid = :aid',
        '  (select-only: Index Scan using pgbench_accounts_pkey on',
        '  pgbench_accounts -> Seq Scan on pgbench_accounts)',
        'Cost per call, base -> head (pg_stat_statements, 500 transactions at 1',
        'client):',
        '- SELECT abalance FROM pgbench_accounts WHERE aid = :aid:',
        '  8.7 -> 9,793.0 us (+113053.5%), 3.0 -> 1640.0 blocks (+54566.7%)',
        '',
      ].join('\n'),
    );
    // None changed: one line; what could not be taken follows the movers.
    const unchanged = regressedRun();
    const plans = unchanged.plans!;
    plans.plans[1] = { ...plans.plans[0]!, arm: 'head' };
    plans.failures.push({ workload: 'tp', arm: 'head', reason: 'pgbench -t 500 failed' });
    const { lines } = mail(unchanged);
    expect(lines).toContain('Plans: 1 statement, none changed');
    expect(lines).toContain('tp on head: not taken: pgbench -t 500 failed');
    expect(lines.some((l) => /plan changed/i.test(l))).toBe(false);
  });

  it('carries what the terminal says of the deciding cells: commitfest, steady costs, plans, compiled code', () => {
    const result = regressedRun();
    const said = flat(mail(result).text).toLowerCase();
    const deciding = ['select-only@1', 'select-only@64'];
    const findings = terminal(result)
      .split('\n')
      .map((l) => l.trim())
      .filter(
        (l) =>
          /^(compared:|compiled code,|plan changed:|cost per call,)/.test(l) ||
          l.startsWith(`${SELECT}: `) ||
          deciding.some((cell) => l.startsWith(`${cell}: WAL bytes/tx`)),
      );
    expect(findings).toHaveLength(7);
    for (const line of findings) expect(said).toContain(flat(asciiText(line)).toLowerCase());
  });

  it('carries the terminal\u2019s client, stored-baseline, why and warning lines, each once (#39)', async () => {
    const captured = await readResults(path.join(FIXTURES, 'pgperf-15-smoke-select-only.json'));
    const stored = regressedRun();
    stored.baseline = {
      runId: '20261123T132303Z-a92636b5',
      commit: BASE_SHA,
      ref: 'master',
      storedAt: '2026-11-23T13:23:03Z',
      measuredAt: '2026-11-23T13:20:00Z',
      ageDays: 2.5,
      sentinel: { status: 'steady', reason: 'sentinel: steady within 2%', onDrift: 'inconclusive' },
    };
    stored.warnings = ['a warning the run recorded', 'a warning the run recorded'];
    for (const result of [captured, stored]) {
      const said = flat(mail(result).text);
      const lines = terminal(result).split('\n');
      const under = (heading: string) => {
        const from = lines.indexOf(heading);
        return from < 0 ? [] : lines.slice(from + 1, lines.indexOf('', from) >>> 0).map((l) => l.slice(4));
      };
      const findings = [
        ...lines.filter((l) => /^(client|baseline): /.test(l)),
        ...under('why (each said once):'),
        ...under('warnings:'),
      ];
      expect(findings.length).toBeGreaterThanOrEqual(result === captured ? 6 : 3);
      for (const line of findings) {
        const text = flat(asciiText(line));
        // Said, and said once.
        expect(said.toLowerCase()).toContain(text.toLowerCase());
        expect(said.split(text.slice(1)).length - 1).toBe(1);
      }
    }
    expect(flat(mail(stored).text)).toContain(
      'Baseline: stored run 20261123T132303Z-a92636b5, commit aaaaaaaaaa (master), measured 2.5 day(s) ago',
    );
    expect(mail(captured).lines).toContain('Why (each said once):');
  });

  it('carries the notes under the terminal\u2019s tables and its curve lines, each message once (#39)', async () => {
    const result = await readResults(path.join(FIXTURES, 'pgperf-15-smoke-select-only.json'));
    const said = flat(mail(result).text);
    const notes = terminal(result)
      .split('\n')
      .flatMap((l) => {
        const m = /^ {2}(?:clients [\d, ]+: (.*)|(curve: .*))$/.exec(l);
        return m ? [flat(asciiText(m[1] ?? m[2]!))] : [];
      });
    // smoke and select-only: unstable cells, a collapse and a curve each.
    expect(notes.filter((n) => n.startsWith('curve: '))).toHaveLength(2);
    expect(notes.length).toBeGreaterThanOrEqual(5);
    for (const note of notes) {
      expect(said).toContain(note);
      expect(said.split(note).length - 1).toBe(1);
    }
    expect(said).toContain(
      'Notes: - smoke at 1 and 2 clients: unstable on this runner: an A/A-style spread of 39.4% at 1 client',
    );
    expect(said).toContain('- smoke: curve: base peak 650.5 TPS at 2 clients, still scaling, no collapse;');
    expect(said).toContain('- select-only at 8 clients: unstable: 8 clients lies in a throughput collapse');
  });

  describe('every line is printable ASCII and at most 72 columns', () => {
    const failOns: FailOn[] = ['regression', 'inconclusive', 'never'];
    it.each(CAPTURED.flatMap((f) => failOns.map((failOn) => [f, failOn] as const)))(
      '%s, fail-on %s',
      async (file, failOn) => {
        const result = await readResults(path.join(FIXTURES, file));
        expect(badLines(mail(result, failOn).text)).toEqual([]);
        // The same run with every workload renamed long, and a long run URL.
        const renamed = Object.keys(result.workloads).reduce(
          (doc, name, i) => renameWorkload(doc, name, `${LONG_NAME}-${i}`),
          result,
        );
        renamed.source = { ...renamed.source, runUrl: LONG_URL };
        const long = mail(renamed, failOn).text;
        expect(badLines(long)).toEqual([]);
        expect(long.replace(/\s/g, '')).toContain(LONG_NAME);
      },
    );

    it.each(VARIANTS)('%s', (_, options) => {
      for (const failOn of failOns) expect(badLines(mail(regressedRun(options), failOn).text)).toEqual([]);
    });
  });

  it.each(VARIANTS.filter(([name]) => name !== 'a hostile name'))(
    'the folded Reproduce block runs as the unfolded one: %s',
    (_, options) => {
      const result = regressedRun(options);
      const folded = bash(scriptOf(mail(result).lines));
      const clients = (folded.workload as { clients: number[] }).clients;
      const [original] = reproductions(result, [{ workload: options.name ?? 'select-only', clients }]);
      const unfolded = bash(original!.script);
      expect(folded.args).toEqual(unfolded.args);
      expect(folded.workload).toEqual(unfolded.workload);
    },
  );

  it('says where the commands are when they hold what plain ASCII cannot carry', () => {
    const { text } = mail(regressedRun({ name: 'r\u00e9sum\u00e9' }));
    expect(text).toMatch(/^- resume at 64 clients, TPS /m);
    expect(text.replace(/\s+/g, ' ')).toContain(
      'the commands hold characters a plain-text mail cannot carry; pgperf compare --format markdown',
    );
    expect(text).not.toContain('cat > ');
  });

  it('a long URL is broken inside angle brackets (RFC 3986 Appendix C)', () => {
    const { lines } = mail(regressedRun({ runUrl: LONG_URL }));
    const from = lines.indexOf('Full report:');
    expect(from).toBeGreaterThan(0);
    const broken = lines.slice(from + 1).join('');
    expect(broken).toBe(`<${LONG_URL}>`);
  });
});

describe('plain-text helpers', () => {
  it('asciiText spells the reports\u2019 symbols in ASCII and drops what a terminal or mail would misread', () => {
    expect(asciiText('CI inside \u00b12%, int4mi, \u2026 12.1 \u2192 12.3 \u2013 5 \u00b5s')).toBe(
      'CI inside +/-2%, int4mi, ... 12.1 -> 12.3 - 5 us',
    );
    expect(asciiText('r\u00e9sum\u00e9 a\u202eb\u001b[31m \u{1f680}')).toBe('resume a b [31m ?');
  });

  it('wrap breaks at spaces with a hanging indent and cuts a word longer than a line', () => {
    expect(wrap('a b', '- ', '  ')).toEqual(['- a b']);
    const lines = wrap(`${'word '.repeat(30)}${'x'.repeat(100)}`, '- ', '  ');
    expect(lines.every((l) => l.length <= MAIL_WIDTH)).toBe(true);
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true);
    expect(lines.join('').slice(2).replace(/\s/g, '')).toBe(`${'word'.repeat(30)}${'x'.repeat(100)}`);
  });

  it('foldShell never splits a backslash from the quote it escapes, and reopens a quote it cuts', () => {
    const word = `'${"it'\\''s ".repeat(20)}'`;
    const lines = foldShell([`  --set ${word} \\`, '  --seed 1']);
    expect(lines.every((l) => l.length <= MAIL_WIDTH)).toBe(true);
    const joined = execFileSync('bash', ['-c', `printf '%s\\n' ${lines.join('\n')}`], { encoding: 'utf8' });
    expect(joined).toBe(`--set\n${"it's ".repeat(20)}\n--seed\n1\n`);
  });
});

/** The document with a workload renamed everywhere it is named (keys and values alike). */
function renameWorkload(result: RunResult, from: string, to: string): RunResult {
  const swap = (v: unknown): unknown => {
    if (v === from) return to;
    if (Array.isArray(v)) return v.map(swap);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k === from ? to : k, swap(x)]));
    }
    return v;
  };
  return swap(result) as RunResult;
}
