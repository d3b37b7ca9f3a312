/**
 * The Action's `mode: comment`: publishes an earlier benchmark job's results (a fork's artifact) with the
 * analysis settings that job chose and recorded, to the target GitHub vouches for (publish-target.ts); or,
 * from a `/pgperf attribute` command's attribute job, its attribution as the reply (attribution-reply.ts).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { analyse } from '../../../core/compare/analysis/recorded-analysis.js';
import { RESULTS_FILE } from '../../../flows/compare/pipeline/pipeline.js';
import { commentTarget } from '../../../flows/publish/publish-target.js';
import { readResults } from '../../../store/read-results.js';
import type { ActionMode } from '../action-deps.js';
import { publishComparison } from '../publish-comparison.js';
import { vouchedEventOf } from '../trusted-target.js';
import { replyWithAttribution } from './attribution-reply.js';

const isFile = (file: string) =>
  stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

export const runCommentMode: ActionMode = async (inputs, ctx, deps, resultsDir) => {
  const resultsFile = path.join(resultsDir, RESULTS_FILE);
  // The artifact of a `/pgperf attribute` command's attribute job: its report as the reply.
  const attribution = path.join(resultsDir, 'attribution.json');
  if (!(await isFile(resultsFile)) && (await isFile(attribution))) {
    return replyWithAttribution(attribution, inputs, ctx, deps, resultsDir);
  }
  // A fork's artifact: checked as every results document is (duplicate samples, undeclared arms, ...).
  const result = await readResults(resultsFile, { warn: (m) => deps.logger.warn(m) });
  const event = vouchedEventOf(ctx);
  const target = await commentTarget(event, result, inputs.prNumber, deps.api, resultsFile, inputs.headRef);
  deps.logger.info(`comment mode: publishing for ${target.basis}`);
  return publishComparison({ result, comparison: analyse(result) }, target, inputs, ctx, deps, resultsDir);
};
