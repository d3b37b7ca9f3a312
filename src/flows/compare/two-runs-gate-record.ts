/**
 * The gate record a comparison of two results files states (`pgperf compare BASE.json HEAD.json`): the
 * record of the runner both runs were measured on, from the store at hand (read-gate-record.ts: its stored
 * calibrations of the compared cells), else the one the head run recorded when it ran. Runs of two runners
 * have no one runner's record: none, said in the log.
 */
import type { RunnerGateRecord } from '../../core/results/calibration-record.js';
import type { RunResult } from '../../core/results/result-types.js';
import type { Logger } from '../../core/util/logger.js';
import { readGateRecord, type GateRecordStore } from './noise/read-gate-record.js';
import { runnerId } from './noise/runner-noise.js';

/**
 * The record for `merged` (mergeTwoRuns of `base` and `head`), or undefined.
 *
 * @example await twoRunsGateRecord(baseDoc, headDoc, merged, store, logger) // { aa: { comparisons: 40, … }, … }
 */
export async function twoRunsGateRecord(
  base: RunResult,
  head: RunResult,
  merged: RunResult,
  store: GateRecordStore | undefined,
  logger: Logger,
): Promise<RunnerGateRecord | undefined> {
  const runner = runnerId(head.environment);
  if (runnerId(base.environment) !== runner) {
    logger.info(
      "base and head were measured on two runners: no one runner's false alarms and catch rate apply",
    );
    return undefined;
  }
  const cells = merged.plan.cells.map((c) => ({ workload: c.workload, clients: c.clients }));
  const stored = await readGateRecord(store, runner, cells, logger);
  if (stored) return stored;
  // The head run's own record, when it kept one (of this runner: the one it was measured on).
  return head.gateRecord?.runner === runner ? head.gateRecord : undefined;
}
