/**
 * Plain-text rendering of a bisection report: the verdict first (the first bad commit with its delta and
 * CI against good, or why none was named), then every commit tested with its verdict, then the cost.
 * Commit subjects and names are plain text (plainText): no control characters (a terminal escape sequence,
 * a line break) or bidirectional overrides reach the terminal.
 */
import type { BisectReport, CommitJudgement } from '../../history/bisect-report.js';
import { short } from '../../util/commit-id.js';
import { formatDeltaCi } from '../../compare/format.js';
import { METRICS } from '../../results/metrics.js';
import { plainText } from '../../util/plain-text.js';

export function renderBisectText(r: BisectReport): string {
  const lines = [
    headline(r),
    design(r),
    '',
    ...testedTable(r),
    '',
    costLine(r),
    `runs: ${plainText(r.outDir)}`,
  ];
  return `${lines.join('\n')}\n`;
}

function headline(r: BisectReport): string {
  const o = r.outcome;
  const good = short(r.good.sha);
  if (o.kind === 'found') {
    return (
      `first bad commit: ${short(o.firstBad.sha)} "${plainText(o.firstBad.subject, 120)}": ` +
      `${o.judgement ? measured(o.judgement) : 'not measured (--no-verify-bad: bad assumed bad)'} vs good ${good}` +
      ` (last good: ${short(o.lastGood.sha)})`
    );
  }
  if (o.kind === 'not-reproduced') {
    return (
      `no first bad commit: bad ${short(r.bad.sha)} is not a regression against good ${good} here ` +
      `(${o.judgement.verdict}, ${measured(o.judgement)}); nothing to bisect`
    );
  }
  const why = o.interrupted
    ? 'the bisection was interrupted'
    : `${short(o.undecided.sha)} stayed inconclusive after ${tries(r, o.undecided.sha)} tr${tries(r, o.undecided.sha) === 1 ? 'y' : 'ies'}`;
  const list =
    o.candidates.length === 1
      ? short(o.candidates[0]!.sha)
      : `${o.candidates.length} commits ${short(o.candidates[0]!.sha)}..${short(o.candidates.at(-1)!.sha)}`;
  return `first bad commit NOT NAMED: ${why}; it is one of ${list} (after last good ${short(o.lastGood.sha)})`;
}

function design(r: BisectReport): string {
  const metric = METRICS[r.analysis.metric].label;
  return (
    `bisected ${r.candidates} commit(s) after good ${short(r.good.sha)} up to bad ${short(r.bad.sha)} (${r.walk}) ` +
    `on ${plainText(r.cell.workload)}@${r.cell.clients}: ${metric}, threshold ${r.analysis.thresholdPct}%, alpha ${r.analysis.alpha}`
  );
}

function testedTable(r: BisectReport): string[] {
  const rows = [
    ['step', 'commit', 'call', 'verdict', 'delta vs good [95% CI]', 'rounds', 'subject'],
    ...r.tested.map((t) => [
      String(t.step),
      short(t.sha),
      t.call,
      t.judgement.interrupted ? `${t.judgement.verdict} (interrupted)` : t.judgement.verdict,
      formatDeltaCi(t.judgement) ?? 'n/a',
      t.judgement.tries.map((x) => x.pairs ?? 0).join('+'),
      plainText(t.subject, 120),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) =>
    row
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

function costLine(r: BisectReport): string {
  const c = r.cost;
  return (
    `cost: ${c.builds} build(s) (${c.cacheHits} cache hit(s)) ${c.buildS} s, ${c.tests} A/B test(s) ` +
    `${c.measureS} s measuring, ${c.totalS} s in total`
  );
}

function measured(j: CommitJudgement): string {
  const sameCode = j.tries.at(-1)?.sameCompiledCode === true;
  return formatDeltaCi(j) ?? (sameCode ? "good's compiled code, not measured" : 'no estimate');
}

function tries(r: BisectReport, sha: string): number {
  return r.tested.find((t) => t.sha === sha)?.judgement.tries.length ?? 0;
}
