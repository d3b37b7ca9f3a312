/** What the Action's modes are handed (side effects behind small interfaces) and what they return. */
import type { OverallVerdict } from '../../core/compare/comparison-types.js';
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { GitHubApi } from '../../github/api.js';
import type { PipelineDeps } from '../../flows/compare/pipeline/pipeline.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';
import type { StoreAccess } from './store-setup.js';

export interface ActionIO {
  setOutput(name: string, value: string): void;
  writeSummary(markdown: string): Promise<void>;
}

export interface ActionDeps {
  logger: Logger;
  runner: ProcessRunner;
  io: ActionIO;
  /** Absent when no token was given (comment and status off). */
  api?: GitHubApi;
  /** Builds base and head from source when no bin dirs are given (the pipeline's build stage). */
  build?: PipelineDeps['build'];
  /** Resolved build cache directory (the input, or the default for this user). */
  cacheDir: string;
  /** The action's own directory (for the shipped workloads). */
  actionDir: string;
  /** Opens the results store (`store`, `store-branch`); absent: runs are not stored. */
  stores?: StoreAccess;
  signal?: AbortSignal;
  /** The PATH to find taskset/numactl on (workloads with `cpus`). */
  searchPath?: string;
}

export interface ActionOutcome {
  /** The mode's decision: every mode returns one (flow-decision.ts), and decision.json says it. */
  decision: GateDecision;
  verdict: OverallVerdict;
  /** Set when the step must fail (fail-on, or a run that did not complete), with the reason. */
  failure?: string;
  resultsFile: string;
  reportFile: string;
}

/** One Action mode: what `mode` selects in run-action.ts's table. */
export type ActionMode = (
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
  resultsDir: string,
) => Promise<ActionOutcome>;

export { REPORT_FILE } from '../../flows/publish/publish.js';

/** The pipeline's deps for a mode: the Action's runner, logger, signal and builder (the store goes to the flow on its own). */
export function pipelineDepsOf(deps: ActionDeps): PipelineDeps {
  return {
    runner: deps.runner,
    logger: deps.logger,
    signal: deps.signal,
    build: deps.build,
    searchPath: deps.searchPath,
  };
}
