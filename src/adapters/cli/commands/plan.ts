/** `pgperf plan`: its flags, then the noise plan (flows/compare/noise/runner-design.ts) and/or the shard split, printed. */
import { Command } from 'commander';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import { planShards, type ShardPlan } from '../../../run/shards.js';
import { noiseDesignJson, renderNoiseDesign } from '../../../core/report/terminal/noise-design-text.js';
import {
  noiseDesignOf,
  plannedWorkloads,
  type PlannedRounds,
} from '../../../flows/compare/noise/runner-design.js';
import { roundsChoiceOf } from '../../../flows/compare/options/rounds-choice.js';
import { roundsText } from '../../../run/rounds-origin.js';
import { DEFAULT_ALPHA } from '../../../core/compare/defaults.js';
import type { Workload } from '../../../drivers/workload.js';
import { FIXED_ROUNDS_HELP } from '../adaptive-flags.js';
import { RUN_FLAG_NAMES } from './run.js';
import { renderShardPlan } from '../../../core/report/terminal/shard-plan-text.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { addAnalysisOptions, analysisFromFlags, type AnalysisFlags } from '../analysis-flags.js';
import { clientCounts, positiveInt, workloadOptionHelp } from '../flag-parsers.js';
import { CLIENTS, CLIENT_COUNTS, DURATION_S, ROUNDS, rangeText } from '../../../core/bounds.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { planSizeProblem } from '../../../run/plan-size.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../../../core/compare/analysis/confirmation.js';

interface PlanFlags extends AnalysisFlags {
  workload: string[];
  clients?: number[];
  shards?: number;
  rounds?: number;
  fixedRounds: boolean;
  duration?: number;
  arms: number;
  store?: string;
  json?: boolean;
}

/**
 * `pgperf plan --workload FILE... [--clients LIST] [--store S] [--threshold PCT] [--alpha A] [--shards N] [--json]`: per cell
 * this runner's noise (from the store: its newest A/A calibration, else its history), the rounds the
 * threshold needs and the smallest change the planned rounds resolve; with --shards the deterministic split
 * of the cells over N machines (`run --shard I/N`), and only that unless --store is given too.
 */
export function planCommand(): Command {
  const command = new Command('plan')
    .description(
      "plan a comparison: this runner's noise per cell, the rounds a threshold needs and the smallest change the planned rounds resolve; with --shards, the split over machines",
    )
    .requiredOption('--workload <file|name...>', workloadOptionHelp())
    .option(
      '--clients <list>',
      `client counts for every workload instead of its own, as run --clients (e.g. 1,4,64; each ${rangeText(CLIENTS)}, at most ${CLIENT_COUNTS.max})`,
      clientCounts('--clients'),
    )
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--shards <n>', 'split the cells into N shards (see run --shard)', positiveInt('--shards'))
    .option(
      '--rounds <n>',
      `rounds (overrides the workloads'); ${rangeText(ROUNDS)}`,
      positiveInt('--rounds', ROUNDS),
    )
    .option('--fixed-rounds', `plan ${FIXED_ROUNDS_HELP}`, false)
    .option(
      '--duration <seconds>',
      `seconds per run (overrides the workloads'); ${rangeText(DURATION_S)}`,
      positiveInt('--duration', DURATION_S),
    )
    .option('--arms <n>', 'arms per cell (default 2)', positiveInt('--arms'), 2)
    .option('--json', 'print the plan as JSON');
  return addAnalysisOptions(command, 'run').action(async (flags: PlanFlags) => {
    const loaded = [];
    for (const file of flags.workload) loaded.push(...(await loadWorkloads(file, { what: '--workload' })));
    const workloads = plannedWorkloads(loaded, flags);
    // The size `run` would refuse (its confirmation rounds included), refused here too, before any split.
    const oversized = planSizeProblem(
      {
        workloads,
        arms: flags.arms,
        confirmRounds: DEFAULT_CONFIRM_ROUNDS,
        ...(flags.shards !== undefined ? { shards: flags.shards } : {}),
      },
      {
        workloads: '--workload',
        clients: '--clients',
        rounds: '--rounds',
        confirmRounds: 'run --confirm-rounds',
        duration: '--duration',
      },
    );
    if (oversized) throw new UserError(oversized);
    let shards: ShardPlan | undefined;
    if (flags.shards !== undefined) {
      try {
        shards = planShards(workloads, flags.shards, flags.arms);
      } catch (e) {
        throw new UserError(`--shards ${flags.shards}: ${errorMessage(e)}`);
      }
      // --shards alone is the split as before (a matrix job computes it with no store at hand).
      if (flags.store === undefined) {
        process.stdout.write(flags.json ? `${JSON.stringify(shards, null, 2)}\n` : renderShardPlan(shards));
        return;
      }
    }
    const logger = consoleLogger({ verbose: false });
    const analysis = analysisFromFlags(flags);
    const rounds = plannedRounds(loaded, flags, analysis.alpha ?? DEFAULT_ALPHA);
    const noise = await noiseDesignOf(workloads, { arms: flags.arms, analysis, rounds }, () =>
      openCliStore(flags.store, logger, false),
    );
    if (flags.json) {
      process.stdout.write(noiseDesignJson(noise, shards));
      return;
    }
    process.stdout.write(renderNoiseDesign(noise) + (shards ? `\n${renderShardPlan(shards)}` : ''));
  });
}

/** The rounds a `pgperf run` of these workloads with these flags would run (a sharded one: fixed). */
function plannedRounds(loaded: readonly Workload[], flags: PlanFlags, alpha: number): PlannedRounds {
  const { adaptive, origin } = roundsChoiceOf(
    {
      ...(flags.rounds !== undefined ? { rounds: flags.rounds } : {}),
      adaptive: {},
      fixedRounds: flags.fixedRounds,
      workloads: loaded,
      baseline: 'same-job',
      sharded: flags.shards !== undefined,
      alpha,
      roundS: 0,
    },
    RUN_FLAG_NAMES,
  );
  const text = roundsText(
    { ...(adaptive ? { adaptive } : {}), rounds: flags.rounds, roundsOrigin: origin },
    loaded,
  );
  return { ...(adaptive ? { adaptive: adaptive.plan } : {}), text };
}
