/**
 * The Action's side of publishing a comparison's verdict (src/flows/compare/publish.ts): the accepted
 * trade-offs from the PR, the job summary and the outputs, the sticky comment and the commit status on the
 * target trusted-target.ts established. Used by modes benchmark and comment.
 */
import type { RunComparison } from '../../core/compare/types.js';
import type { RunResult } from '../../core/results/types.js';
import { publishVerdict } from '../../flows/compare/publish.js';
import { acceptancesFor } from '../../flows/compare/acceptances.js';
import type { ActionDeps, ActionOutcome } from './action-deps.js';
import type { ActionContext } from './context.js';
import { outcomeOf, setDecisionOutputs, statusOf } from './gate.js';
import { postToGitHub } from './github-publish.js';
import type { ActionInputs } from './inputs.js';
import { triggerNote } from './trigger.js';
import type { PublishTarget } from './trusted-target.js';

export async function publishComparison(
  run: { result: RunResult; comparison: RunComparison },
  target: PublishTarget,
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
): Promise<ActionOutcome> {
  const { io } = deps;
  const { decision, resultsFile, reportFile } = await publishVerdict(
    {
      ...run,
      resultsDir,
      failOn: inputs.failOn,
      commentId: inputs.commentId,
      commentOn: inputs.commentOn,
      headSha: target.headSha,
      runId: ctx.runId,
      fallbackRunUrl: ctx.runUrl,
      note: triggerNote(target, ctx),
    },
    {
      accepted: () => acceptancesFor(target, inputs, deps),
      writeSummary: (markdown) => io.writeSummary(markdown),
      setOutputs: (decision, comparison, files) => {
        setDecisionOutputs(io, decision, comparison, files.decisionFile);
        io.setOutput('results-json', files.resultsFile);
        io.setOutput('report-markdown', files.reportFile);
      },
      post: (body, decision, runUrl) =>
        postToGitHub({ body, status: statusOf(decision, runUrl) }, target, inputs, deps),
    },
    deps.logger,
  );
  return outcomeOf(decision, resultsFile, reportFile);
}
