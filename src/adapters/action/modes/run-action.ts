/**
 * The Action's modes, one row each: input `mode` -> the flow it runs, after the directories it writes are
 * proven writable. Each mode is its own file; this file only chooses.
 */
import path from 'node:path';
import { checkWritableDirectory } from '../../../machine/os/writable-dir.js';
import type { ActionDeps, ActionMode, ActionOutcome } from '../action-deps.js';
import type { ActionContext } from '../context.js';
import type { ActionInputs } from '../inputs.js';
import { runBenchmarkMode } from './benchmark-mode.js';
import { runCommentMode } from './comment-mode.js';
import { runConsolidate } from './consolidate-mode.js';
import { runNightlyMode } from './nightly-mode.js';
import { runCalibrateMode } from './calibrate-mode.js';
import { runBisectMode } from './bisect-mode.js';
import { runCommandMode } from './command-mode.js';
import { runAttributeMode } from './attribute-mode.js';

/** A mode: what it does, for the log and the docs, and the flow it runs (the results dir resolved). */
interface ModeEntry {
  does: string;
  run: ActionMode;
}

/** The Action's modes, one row each: input `mode` -> the flow it runs. */
const MODE_TABLE: Record<ActionInputs['mode'], ModeEntry> = {
  benchmark: { does: 'build, run, decide and publish (a shard publishes its part)', run: runBenchmarkMode },
  comment: { does: "publish an earlier benchmark job's results (fork PRs)", run: runCommentMode },
  consolidate: { does: 'decide over the shards of a matrix and publish', run: runConsolidate },
  nightly: { does: 'measure the branch head into the store, find change points', run: runNightlyMode },
  calibrate: { does: "an A/A run: this runner's noise and false alarms", run: runCalibrateMode },
  bisect: { does: 'the first bad commit of a regression', run: runBisectMode },
  command: {
    does: 'a /pgperf PR comment: permission, reaction, the request as outputs',
    run: runCommandMode,
  },
  attribute: {
    does: 'the commits of base-ref..head-ref that moved the instructions per transaction',
    run: runAttributeMode,
  },
};

export async function runAction(
  inputs: ActionInputs,
  ctx: ActionContext,
  deps: ActionDeps,
): Promise<ActionOutcome> {
  const mode = MODE_TABLE[inputs.mode];
  deps.logger.debug(`mode ${inputs.mode}: ${mode.does}`);
  const resultsDir = path.resolve(ctx.workspace, inputs.resultsDir);
  await checkActionDirs(inputs, resultsDir, deps.cacheDir);
  return mode.run(inputs, ctx, deps, resultsDir);
}

/**
 * The directories a mode writes, created and proven writable before anything is built or started: results-dir
 * (every mode but command), and the build cache of a mode that builds PostgreSQL.
 */
async function checkActionDirs(inputs: ActionInputs, resultsDir: string, cacheDir: string): Promise<void> {
  if (inputs.mode === 'command') return;
  await checkWritableDirectory(resultsDir, {
    what: "input 'results-dir'",
    expected: 'a directory for the results (created if missing)',
  });
  const builds =
    inputs.mode === 'bisect' ||
    inputs.mode === 'attribute' ||
    ((inputs.mode === 'benchmark' || inputs.mode === 'nightly') && !inputs.baseBinDir && !inputs.headBinDir);
  if (!builds) return;
  await checkWritableDirectory(cacheDir, {
    what: inputs.cacheDir
      ? "input 'cache-dir'"
      : "the build cache (default; input 'cache-dir' to choose another)",
    expected: 'a directory for the build cache (created if missing)',
    public: true,
  });
}
