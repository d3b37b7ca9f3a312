/**
 * Confirm before accusing: the cells that regressed after the main rounds (as the analysis of the
 * document will judge them) are measured again in a block of their own rounds, base and the regressed
 * head arms only, after a restart of their servers (cold shared buffers, new postmaster; the data set
 * is kept) and in a new arm order (arms reversed, a new seed). Stored apart (result.confirmation).
 */
import { compareRun } from '../core/compare/analysis/compare-run.js';
import { DEFAULT_CONFIRM_ROUNDS, confirmationTargets } from '../core/compare/analysis/confirmation.js';
import { cellId } from '../core/results/result-types.js';
import { deriveSeed, planRounds } from './round-order.js';
import { firstVisits, measureRun, type BlockTarget, type MeasureContext } from './measure-run.js';
import type { RunRequest } from './run-request.js';
import type { Judging } from './rounds.js';

/** deriveSeed(seed, this) seeds the confirmation block: a round number no main plan reaches. */
const CONFIRMATION_SEED_ROUND = 0x7fff_0001;

export async function confirmRegressions(
  req: RunRequest,
  ctx: MeasureContext,
  judging: Judging,
): Promise<void> {
  const { logger, signal } = ctx.deps;
  const { result } = ctx.journal;
  const blockRounds = req.confirmRounds ?? DEFAULT_CONFIRM_ROUNDS;
  if (blockRounds <= 0 || req.calibration || req.arms.length < 2) return;
  const lastLook = result.adaptive?.looks.at(-1)?.look;
  const targets = confirmationTargets(
    compareRun(result, {
      alpha: req.analysis.alpha,
      ...judging,
      ...(req.adaptive && lastLook ? { adaptive: { plan: req.adaptive.plan, look: lastLook } } : {}),
    }),
  );
  if (targets.length === 0) return;
  const blockSeed = deriveSeed(ctx.seed, CONFIRMATION_SEED_ROUND);
  const blockCells = [
    ...new Map(targets.map((t) => [cellId(t), { workload: t.workload, clients: t.clients }])).values(),
  ];
  const blockArms = [req.arms[0]!.label, ...new Set(targets.map((t) => t.head))].reverse();
  const block: BlockTarget = { samples: [], seed: blockSeed, rounds: blockRounds };
  result.confirmation = { rounds: blockRounds, seed: blockSeed, cells: targets, samples: block.samples };
  const names = targets.map((t) => `${t.head}:${cellId(t)}`).join(', ');
  logger.info(
    `confirmation: ${names} regressed; measuring ${blockRounds} more round(s) of base and head on restarted servers, arms in a new order`,
  );
  await logger.group('Confirmation block: restarting servers', () =>
    ctx.clusters.restart(
      blockArms,
      blockCells.map((c) => c.workload),
      signal,
    ),
  );
  const planned = planRounds({
    cells: blockCells.map((c) => ({ ...c, rounds: blockRounds })),
    arms: blockArms,
    order: req.order,
    seed: blockSeed,
  });
  const warmups = firstVisits(planned.flat(), ctx.workloadByName);
  for (const run of planned.flat()) ctx.progress.addRun(ctx.workloadByName.get(run.workload)!.duration);
  for (const run of warmups) ctx.progress.addRun(ctx.workloadByName.get(run.workload)!.warmup);
  for (const [r, roundRuns] of planned.entries()) {
    await logger.group(`Confirmation round ${r + 1} of ${planned.length}`, async () => {
      for (const run of roundRuns) {
        signal?.throwIfAborted();
        await measureRun(ctx, run, warmups.has(run), block);
      }
    });
  }
}
