/**
 * Mode comment's reply to a `/pgperf attribute` command (docs/pr-commands.md#attribute-a-range): the
 * attribute job's attribution.json (its artifact in results-dir, checked field by field: that job built
 * whatever the refs named) rendered as markdown with the text waterfall and posted on the PR the comment
 * event is on (GitHub's word, never the artifact's). This job runs nothing of the range.
 */
import { attributionReplyText } from '../../../core/report/attribution/attribution-reply.js';
import { UserError } from '../../../core/util/errors.js';
import { attributionDecision } from '../../../flows/attribute/attribution-gate.js';
import { readAttributionReport } from '../../../flows/attribute/read-attribution.js';
import type { ActionMode } from '../action-deps.js';
import { publishGate } from '../gate.js';
import { repoUrlOf } from '../repo-url.js';
import { vouchedEventOf } from '../trusted-target.js';

/** The reply from `file` (results-dir/attribution.json); the arguments are mode comment's. */
export async function replyWithAttribution(
  file: string,
  ...[inputs, ctx, deps, resultsDir]: Parameters<ActionMode>
): ReturnType<ActionMode> {
  const pr = vouchedEventOf(ctx).commentOnPr;
  if (ctx.eventName !== 'issue_comment' || pr === undefined) {
    throw new UserError(
      `mode comment posts an attribution (${file}) only as the reply to a /pgperf attribute comment on a pull request (an issue_comment event), got '${ctx.eventName}'`,
    );
  }
  if (!deps.api) throw new UserError("mode comment replies through the API: set 'github-token'");
  const report = await readAttributionReport(file);
  await deps.api.createComment(
    pr,
    attributionReplyText(report, { repoUrl: repoUrlOf(inputs, ctx), runUrl: ctx.runUrl }),
  );
  deps.logger.info(
    `comment mode: the attribution of ${report.from.sha}..${report.to.sha} posted on PR #${pr}`,
  );
  deps.io.setOutput('attribution-json', file);
  deps.io.setOutput('culprits', report.culprits.map((c) => c.sha).join('\n'));
  const files = { dir: resultsDir, resultsFile: file, reportFile: '' };
  return publishGate(deps.io, attributionDecision(report, inputs.failOn), files, (l) => deps.logger.info(l));
}
