/**
 * Markdown rendering of an attribution (attribution.md under --out, and the Action's job summary): per
 * workload, the end-to-end change first, then the commits named (commit, change per transaction, share,
 * subject), each commit's largest profile movers, how they add up, the waterfall (the image waterfall.svg where it can be shown, else the text
 * waterfall in a code block), the ranges unresolved and unseen; then the cost. Subjects go through
 * escapeMarkdown, commits through commitLink (markdown-escape.ts).
 */
import type { AttributionReport, WorkloadSums } from '../../attribution/attribution-report.js';
import { waterfallOf } from '../../attribution/attribution-waterfall.js';
import { formatPct } from '../../compare/format.js';
import {
  codeBlock,
  codeText,
  commitLink,
  escapeMarkdown,
  markdownLink,
  safeUrl,
} from '../markdown-escape.js';
import { groupedNumber } from '../table-cells.js';
import { UNRESOLVED_WHY, waterfall } from './attribution-text.js';
import { moversTable } from '../evidence/instruction-section.js';

export interface AttributionMarkdownOptions {
  /** Commits link to <repoUrl>/commit/<sha>. */
  repoUrl?: string;
  runUrl?: string;
  /** A path or URL of waterfall.svg that the reader of this markdown can reach (beside it: "waterfall.svg"). */
  waterfallImage?: string;
}

const signed = (v: number) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${groupedNumber(Math.abs(v), 0)}`;
const share = (pct: number | null) => (pct === null ? '–' : `${Math.round(pct)} %`);

export function renderAttributionMarkdown(
  r: AttributionReport,
  options: AttributionMarkdownOptions = {},
): string {
  const commit = (sha: string) => commitLink(sha, options.repoUrl);
  const out = [
    `## pgperf attribute: ${commit(r.from.sha)} .. ${commit(r.to.sha)}`,
    '',
    `${r.commits} commit${r.commits === 1 ? '' : 's'} on the first-parent line of ${escapeMarkdown(r.repo, 200)}, ` +
      `${r.culprits.length} named; instructions per transaction counted with ${escapeMarkdown(r.counter)}.`,
  ];
  if (options.waterfallImage !== undefined) {
    out.push(
      '',
      `![waterfall from ${escapeMarkdown(r.from.sha.slice(0, 7))} to ${escapeMarkdown(r.to.sha.slice(0, 7))}](${options.waterfallImage})`,
    );
  }
  for (const w of r.workloads)
    out.push('', ...workloadMarkdown(r, w, commit, options.waterfallImage === undefined));
  if (r.unmeasured.length > 0) {
    out.push('', `**Not measured** (${r.unmeasured.length}):`, '');
    for (const u of r.unmeasured) out.push(`- ${commit(u.sha)}: ${escapeMarkdown(u.reason, 200)}`);
  }
  const c = r.cost;
  out.push(
    '',
    `Counted ${r.budget.counted} of at most ${r.budget.maxCommits} commits` +
      (c.reused > 0 ? ` (${c.reused} by an earlier run: the journal)` : '') +
      (r.budget.exhausted ? ' (the budget ran out)' : '') +
      `; ${c.builds} build(s) (${c.cacheHits} from the cache, ${c.buildS} s), counting ${c.countS} s, ${c.totalS} s in all.` +
      (options.runUrl && safeUrl(options.runUrl) ? ` ${markdownLink('Workflow run', options.runUrl)}.` : ''),
  );
  return `${out.join('\n')}\n`;
}

function workloadMarkdown(
  r: AttributionReport,
  w: WorkloadSums,
  commit: (sha: string) => string,
  textWaterfall: boolean,
): string[] {
  const culprits = r.culprits.flatMap((c) =>
    c.changes.filter((x) => x.workload === w.workload).map((x) => ({ ...c, change: x })),
  );
  const out = [
    `### ${escapeMarkdown(w.workload)}: ${groupedNumber(w.fromPerTx, 0)} → ${groupedNumber(w.toPerTx, 0)} instructions/tx (${signed(w.changePerTx)}, ${formatPct(w.changePct)}); floor ±${w.floorPct}%`,
    '',
  ];
  if (culprits.length === 0) {
    out.push('No commit moved it by the floor or more.');
  } else {
    out.push(
      '| commit | change/tx | share | subject |',
      '| --- | ---: | ---: | --- |',
      ...culprits.map(
        (c) =>
          `| ${commit(c.sha)} | ${signed(c.change.changePerTx)} (${formatPct(c.change.changePct)}) | ${share(c.change.sharePct)} | ${escapeMarkdown(c.subject, 120)} |`,
      ),
    );
  }
  for (const c of culprits) {
    const m = c.change.movers;
    if (m) {
      out.push(
        '',
        `Top movers of ${commit(c.sha)} (self instructions per transaction, parent → commit; all in ${codeText(m.file, 200)}):`,
        '',
        ...(m.top.length > 0 ? moversTable(m.top) : ["No function's self instructions moved."]),
      );
    } else if (c.change.moversMissing) {
      out.push('', `No movers for ${commit(c.sha)}: ${escapeMarkdown(c.change.moversMissing, 300)}.`);
    }
  }
  out.push(
    '',
    `Sum of the ${culprits.length} commit(s): ${signed(w.culpritSumPerTx)} of ${signed(w.changePerTx)}; remainder ${signed(w.remainderPerTx)} ` +
      `(${signed(w.belowFloorPerTx)} below the floor in ${w.belowFloorRanges} range(s)` +
      (w.unresolvedPerTx !== 0 ? `, ${signed(w.unresolvedPerTx)} unresolved` : '') +
      ').',
  );
  if (textWaterfall && culprits.length > 0) {
    out.push('', codeBlock(waterfall(waterfallOf(r, w.workload)).join('\n')));
  }
  for (const u of r.unresolved.filter((x) => x.workload === w.workload)) {
    out.push(
      '',
      `Unresolved: ${commit(u.from)}..${commit(u.to)} (${u.commits} commit(s), ${signed(u.changePerTx)}): ${UNRESOLVED_WHY[u.why]}.`,
    );
  }
  const unseen = r.unseen.filter((x) => x.workload === w.workload);
  if (unseen.length > 0) {
    out.push(
      '',
      `Not seen: changes that cancel exactly inside ${unseen.length} range(s) whose ends agree (${unseen.reduce((s, u) => s + u.commits, 0)} commits).`,
    );
  }
  return out;
}
