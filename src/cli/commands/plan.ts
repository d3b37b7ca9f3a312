import { Command } from 'commander';
import { loadWorkloadFile } from '../../drivers/load-workload.js';
import { planShards } from '../../fleet/shards.js';
import { UserError, errorMessage } from '../../util/errors.js';
import { positiveInt } from '../options.js';

/**
 * `pgperf plan --workload FILE... --shards N [--json]`: the deterministic split of a comparison's cells
 * into N shards balanced by estimated time, as every job of a matrix computes it (`run --shard I/N`).
 */
export function planCommand(): Command {
  return new Command('plan')
    .description('split the cells of a comparison into shards for several machines (see run --shard)')
    .requiredOption('--workload <file...>', 'workload files')
    .requiredOption('--shards <n>', 'number of shards', positiveInt('--shards'))
    .option('--rounds <n>', "rounds (overrides the workloads')", positiveInt('--rounds'))
    .option('--duration <seconds>', "seconds per run (overrides the workloads')", positiveInt('--duration'))
    .option('--arms <n>', 'arms per cell (default 2)', positiveInt('--arms'), 2)
    .option('--json', 'print the plan as JSON')
    .action(
      async (flags: {
        workload: string[];
        shards: number;
        rounds?: number;
        duration?: number;
        arms: number;
        json?: boolean;
      }) => {
        const workloads = [];
        for (const file of flags.workload) {
          const w = await loadWorkloadFile(file);
          workloads.push({ ...w, rounds: flags.rounds ?? w.rounds, duration: flags.duration ?? w.duration });
        }
        let plan;
        try {
          plan = planShards(workloads, flags.shards, flags.arms);
        } catch (e) {
          throw new UserError(`--shards ${flags.shards}: ${errorMessage(e)}`);
        }
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
          return;
        }
        const total = plan.shards.reduce((t, s) => t + s.estimatedS, 0);
        const longest = Math.max(...plan.shards.map((s) => s.estimatedS));
        process.stdout.write(
          `plan ${plan.planId}: ${plan.count} shards, longest ${minutes(longest)} (${minutes(total)} on one machine)\n`,
        );
        for (const s of plan.shards) {
          const cells = s.cells.map((c) => `${c.workload}@${c.clients}`).join(', ');
          process.stdout.write(
            `  shard ${s.index}/${plan.count}  ${minutes(s.estimatedS).padStart(8)}  ${cells}\n`,
          );
        }
      },
    );
}

const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;
