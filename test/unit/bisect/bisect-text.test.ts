import { describe, expect, it } from 'vitest';
import type {
  BisectOutcome,
  BisectReport,
  CommitJudgement,
  TestedCommitReport,
} from '../../../src/core/history/bisect-report.js';
import type { RangeCommit } from '../../../src/core/history/bisect-report.js';
import { resolveAnalysis } from '../../../src/core/compare/analysis/recorded-analysis.js';
import { renderBisectText } from '../../../src/core/report/bisect/bisect-text.js';
import { renderBisectMarkdown } from '../../../src/core/report/bisect/bisect-markdown.js';

const c = (ch: string, subject: string) => ({ sha: ch.repeat(40), subject });
const judged = (deltaPct: number, verdict: CommitJudgement['verdict'], pairs: number[]): CommitJudgement => ({
  verdict,
  deltaPct,
  ci95: { level: 0.95, achievedLevel: 0.96, lowerPct: deltaPct - 2, upperPct: deltaPct + 2 },
  tries: pairs.map((p, i) => ({
    try: i + 1,
    rounds: p,
    verdict,
    deltaPct,
    ci95: null,
    pairs: p,
    resultsFile: `/out/step-${i}/results.json`,
    measureS: 30,
  })),
  build: { cacheHit: false, seconds: 60, installDir: '/cache/x' },
});
const commits = [c('a', 'good one'), c('b', 'readme'), c('c', 'slow'), c('d', 'comment')];
const tested = (index: number, step: number, j: CommitJudgement, call: TestedCommitReport['call']) => ({
  ...commits[index]!,
  index,
  step,
  call,
  judgement: j,
});

/** c ("slow", -60%) is the first bad commit after last good b; bad d itself was measured at -61% first. */
const slow = judged(-60, 'regression', [6]);
const foundSlow: BisectOutcome = {
  kind: 'found',
  firstBad: commits[2]!,
  lastGood: commits[1]!,
  judgement: slow,
};
const badMeasured = tested(3, 1, judged(-61, 'regression', [6]), 'bad');

/** `undecided` stayed inconclusive: the first bad commit is one of b..d, after last good a. */
const undecidedAt = (undecided: RangeCommit): BisectOutcome => ({
  kind: 'undecided',
  lastGood: commits[0]!,
  candidates: commits.slice(1),
  undecided,
  interrupted: false,
});
const inconclusiveB = tested(1, 2, judged(-5, 'inconclusive', [6, 12]), 'undecided');

function report(outcome: BisectOutcome, t: TestedCommitReport[]): BisectReport {
  return {
    repo: '/repo',
    good: commits[0]!,
    bad: commits[3]!,
    walk: 'first-parent',
    candidates: 3,
    cell: { workload: 'tiny', clients: 1 },
    analysis: resolveAnalysis({ thresholdPct: 25 }),
    outcome,
    tested: t,
    cost: { builds: 4, cacheHits: 1, buildS: 120.5, measureS: 90, tests: 3, totalS: 215 },
    outDir: '/out/bisect-x',
  };
}

describe('bisect text report', () => {
  it('leads with the first bad commit, its delta and CI, then each commit tested and the cost', () => {
    const text = renderBisectText(
      report(foundSlow, [
        badMeasured,
        tested(1, 2, judged(0.5, 'no-change', [6, 12]), 'good'),
        tested(2, 3, slow, 'bad'),
      ]),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'first bad commit: ccccccc "slow": -60.00% [-62.00%, -58.00%] vs good aaaaaaa (last good: bbbbbbb)',
    );
    expect(lines[1]).toContain(
      'bisected 3 commit(s) after good aaaaaaa up to bad ddddddd (first-parent) on tiny@1',
    );
    expect(text).toMatch(/^2 +bbbbbbb +good +no-change +\+0\.50% \[-1\.50%, \+2\.50%\] +6\+12 +readme$/m);
    expect(text).toContain(
      'cost: 4 build(s) (1 cache hit(s)) 120.5 s, 3 A/B test(s) 90 s measuring, 215 s in total',
    );
  });

  it('says so when the first bad commit is bad itself, assumed bad and never measured', () => {
    const text = renderBisectText(
      report({ kind: 'found', firstBad: commits[3]!, lastGood: commits[2]! }, [
        tested(2, 1, judged(0.1, 'no-change', [6]), 'good'),
      ]),
    );
    expect(text.split('\n')[0]).toBe(
      'first bad commit: ddddddd "comment": not measured (--no-verify-bad: bad assumed bad) vs good aaaaaaa (last good: ccccccc)',
    );
  });

  it('says when no commit is named, and why, before anything else', () => {
    const undecided = renderBisectText(report(undecidedAt(commits[1]!), [inconclusiveB]));
    expect(undecided.split('\n')[0]).toBe(
      'first bad commit NOT NAMED: bbbbbbb stayed inconclusive after 2 tries; it is one of 3 commits bbbbbbb..ddddddd (after last good aaaaaaa)',
    );
    const notReproduced = renderBisectText(
      report({ kind: 'not-reproduced', judgement: judged(1, 'no-change', [6]) }, [
        tested(3, 1, judged(1, 'no-change', [6]), 'good'),
      ]),
    );
    expect(notReproduced.split('\n')[0]).toMatch(
      /^no first bad commit: bad ddddddd is not a regression against good aaaaaaa here \(no-change, \+1\.00%/,
    );
  });
});

describe('bisect markdown report (the issue comment and job summary)', () => {
  const links = {
    repoUrl: 'https://github.com/pg/postgres',
    runUrl: 'https://github.com/pg/postgres/actions/runs/7',
  };
  const link = (ch: string) =>
    `[\`${ch.repeat(7)}\`](https://github.com/pg/postgres/commit/${ch.repeat(40)})`;

  it('leads with the first bad commit and its delta, then the commits tested and the cost', () => {
    const md = renderBisectMarkdown(report(foundSlow, [badMeasured, tested(2, 2, slow, 'bad')]), links);
    const lines = md.split('\n');
    expect(lines[0]).toBe(`## pgperf bisect: 🔴 first bad commit ${link('c')}`);
    expect(lines[2]).toBe(
      `${link('c')} "slow": measured **-60.00% [-62.00%, -58.00%]** against good ${link('a')}; last good ${link('b')}.`,
    );
    expect(md).toContain(`| 2 | ${link('c')} | bad | regression | -60.00% [-62.00%, -58.00%] | 6 | slow |`);
    expect(md).toContain(
      'Cost: 4 build(s) (1 cache hit(s), 120.5 s), 3 A/B test(s) (90 s measuring), 215 s in total. [Workflow run](https://github.com/pg/postgres/actions/runs/7).',
    );
  });

  it('names the narrowed range, never a guess, when a commit stays inconclusive; subjects are escaped', () => {
    const md = renderBisectMarkdown(
      report(undecidedAt({ ...commits[1]!, subject: '<b>|pipe' }), [
        { ...inconclusiveB, subject: '<b>|pipe' },
      ]),
    );
    expect(md.split('\n')[0]).toBe('## pgperf bisect: ⚠️ first bad commit not named');
    expect(md).toContain(
      '`bbbbbbb` stayed inconclusive after 2 tries. The first bad commit is one of these 3 commit(s) after last good `aaaaaaa`: `bbbbbbb`, `ccccccc`, `ddddddd`.',
    );
    expect(md).not.toContain('<b>|pipe');
  });
});
