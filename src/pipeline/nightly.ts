/**
 * The nightly run, as `pgperf nightly` and the Action's `mode: nightly` both make it: one arm, "head" (the
 * branch head, built or installed), measured in random order with the default analysis settings, recorded
 * with the commit it measured so the history plots it by commit.
 */
import type { RunSource } from '../results/types.js';
import type { ArmSpec } from '../runner/run-loop.js';
import { resolveAnalysis } from './analysis.js';
import type { PipelineRequest } from './pipeline.js';

export interface NightlyRunOptions extends Pick<
  PipelineRequest,
  'workloads' | 'rounds' | 'durationS' | 'runAs' | 'tmpDir'
> {
  /** The measured commit (`chosenBy` says how it was chosen); the rest of the run's source. */
  source: RunSource;
}

export function nightlyRunRequest(
  head: ArmSpec,
  options: NightlyRunOptions,
): Omit<PipelineRequest, 'runDir'> {
  return {
    ...options,
    arms: { kind: 'installed', arms: [{ ...head, label: 'head' }] },
    analysis: resolveAnalysis(),
    order: 'random',
    dataChecksums: false,
  };
}
