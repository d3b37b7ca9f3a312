/**
 * Markdown rendering of a bisection report (the Action's issue comment and job summary): the outcome
 * first (the first bad commit with its measured delta against good, or the range it was narrowed to and
 * why none was named: never a guess), then every commit tested, then the cost. Subjects and the workload
 * go through escapeMarkdown, commits and links through commitLink and markdownLink (markdown-escape.ts).
 */
import { formatDeltaCi } from '../../compare/format.js';
import { commitLink, escapeMarkdown, markdownLink, safeUrl } from '../markdown-escape.js';
import { METRICS } from '../../results/metrics.js';
import type { BisectReport, RangeCommit } from '../../history/bisect-report.js';

/** Where the markdown links: commits and the workflow run. */
export interface BisectLinks {
  /** Commits link to <repoUrl>/commit/<sha>. */
  repoUrl?: string;
  runUrl?: string;
}

export function renderBisectMarkdown(r: BisectReport, links: BisectLinks = {}): string {
  const commit = (c: RangeCommit) => commitLink(c.sha, links.repoUrl);
  const subject = (c: RangeCommit) => escapeMarkdown(c.subject, 120);
  const o = r.outcome;
  let headline: string;
  if (o.kind === 'found') {
    const measured = o.judgement
      ? `measured **${formatDeltaCi(o.judgement) ?? 'no estimate'}** against good ${commit(r.good)}`
      : 'not measured (assumed bad)';
    headline = `## pgperf bisect: 🔴 first bad commit ${commit(o.firstBad)}\n\n${commit(o.firstBad)} "${subject(o.firstBad)}": ${measured}; last good ${commit(o.lastGood)}.`;
  } else if (o.kind === 'not-reproduced') {
    headline =
      `## pgperf bisect: ⚪ not reproduced\n\nBad ${commit(r.bad)} is not a regression against good ${commit(r.good)} on this runner ` +
      `(${o.judgement.verdict}, ${formatDeltaCi(o.judgement) ?? 'no estimate'}): nothing was bisected.`;
  } else {
    const tries = r.tested.find((t) => t.sha === o.undecided.sha)?.judgement.tries.length ?? 0;
    const why = o.interrupted
      ? 'the bisection was interrupted'
      : `${commit(o.undecided)} stayed inconclusive after ${tries} tr${tries === 1 ? 'y' : 'ies'}`;
    headline =
      `## pgperf bisect: ⚠️ first bad commit not named\n\n${why}. The first bad commit is one of these ` +
      `${o.candidates.length} commit(s) after last good ${commit(o.lastGood)}: ` +
      o.candidates.map(commit).join(', ') +
      '.';
  }
  const metric = METRICS[r.analysis.metric].label;
  const design =
    `Bisected ${r.candidates} commit(s) after good ${commit(r.good)} up to bad ${commit(r.bad)} (${r.walk}) on ` +
    `**${escapeMarkdown(r.cell.workload)}** at ${r.cell.clients} client${r.cell.clients === 1 ? '' : 's'}: ` +
    `${metric}, threshold ${r.analysis.thresholdPct}%, alpha ${r.analysis.alpha}.`;
  const table = [
    '| step | commit | call | verdict | delta vs good [95% CI] | rounds | subject |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...r.tested.map(
      (t) =>
        `| ${t.step} | ${commit(t)} | ${t.call} | ${t.judgement.verdict}${t.judgement.interrupted ? ' (interrupted)' : ''} | ` +
        `${formatDeltaCi(t.judgement) ?? 'n/a'} | ${t.judgement.tries.map((x) => x.pairs ?? 0).join('+')} | ${subject(t)} |`,
    ),
  ];
  const c = r.cost;
  const cost =
    `Cost: ${c.builds} build(s) (${c.cacheHits} cache hit(s), ${c.buildS} s), ${c.tests} A/B test(s) ` +
    `(${c.measureS} s measuring), ${c.totalS} s in total.` +
    (links.runUrl && safeUrl(links.runUrl) ? ` ${markdownLink('Workflow run', links.runUrl)}.` : '');
  return `${[headline, '', design, '', ...table, '', cost].join('\n')}\n`;
}

/** The issue comment that says why nothing was bisected (bad commits, a failed build). */
export function renderNotBisected(message: string, runUrl?: string): string {
  const run = runUrl ? ` (${markdownLink('run', runUrl)})` : '';
  return `## pgperf bisect: ❌ not run\n\n${escapeMarkdown(message)}${run}\n`;
}
