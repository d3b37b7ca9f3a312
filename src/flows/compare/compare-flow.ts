/**
 * The comparison flow, once for both adapters: measure base and head in this job (same-job), or head only
 * against a stored baseline. The adapters say which; the choice is made here.
 */
import type { StoredBaselineOptions } from './baseline/stored-baseline.js';
import { runStoredBaseline } from './baseline/stored-baseline.js';
import {
  runPipeline,
  type ArmSource,
  type PipelineDeps,
  type PipelineOutcome,
  type RunArchive,
  type PipelineRequest,
} from './pipeline/pipeline.js';

/**
 * Same-job when `stored` is absent; else head only (given or built) against the stored baseline. The run
 * is saved to `store` when one is given.
 */
export async function runComparison(
  request: PipelineRequest,
  stored: StoredBaselineOptions | undefined,
  deps: PipelineDeps,
  store?: RunArchive,
): Promise<PipelineOutcome> {
  if (!stored) return runPipeline(request, deps, store);
  const head = await headOnly(request.arms, deps);
  return runStoredBaseline({ ...request, arms: { kind: 'installed', arms: [head] } }, stored, deps, store);
}

/** The head arm: the one given (or the one labelled head), or built alone (the store supplies base). */
async function headOnly(arms: ArmSource, deps: PipelineDeps) {
  if (arms.kind === 'installed' && arms.arms.length === 1) return arms.arms[0]!;
  const all =
    arms.kind === 'installed'
      ? arms.arms
      : await deps.logger.group('Building PostgreSQL', () =>
          deps.build!({ ...arms.request, headOnly: true }, deps.signal),
        );
  const head = all.find((a) => a.label === 'head');
  if (!head) throw new Error('no head arm to measure against the stored baseline');
  return head;
}
