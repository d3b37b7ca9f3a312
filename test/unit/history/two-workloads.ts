/**
 * The captured noisy history (noisy-history.ts) as two workloads measured each night, select-only and a
 * copy named tpcb-like at half its TPS, each with its own planted step; or one workload on two machines.
 */
import type { HistoryRun } from '../../../src/core/history/series.js';
import { WORKLOAD, noisyHistory } from './noisy-history.js';

export const OTHER = 'tpcb-like';

/** select-only slower by `factor` from night `stepAt`, tpcb-like (half its TPS) from `otherStepAt`. */
export function twoWorkloads(
  nights: number,
  stepAt: number,
  otherStepAt: number,
  factor = 0.8,
): HistoryRun[] {
  const one = noisyHistory({ nights, stepAt, factor });
  const other = noisyHistory({ nights, stepAt: otherStepAt, factor: 0.75 });
  return one.map((run, night) => ({
    ...run,
    samples: [
      ...run.samples,
      ...other[night]!.samples.map((s) => ({
        ...s,
        workload: OTHER,
        metrics: { ...s.metrics, tps: s.metrics.tps! / 2 },
      })),
    ],
    plan: {
      ...run.plan,
      cells: [...run.plan.cells, ...run.plan.cells.map((c) => ({ ...c, workload: OTHER }))],
    },
  }));
}

/** select-only on a second machine too (fingerprint `fp-b`), slower from `otherStepAt` there. */
export function twoMachines(nights: number, stepAt: number, otherStepAt: number): HistoryRun[] {
  const b = noisyHistory({ nights, stepAt: otherStepAt }).map((run) => ({
    ...run,
    runId: `${run.runId}-b`,
    fingerprint: { id: 'fp-b', facts: { ...run.fingerprint!.facts, cpuModel: 'Intel Xeon (KVM guest)' } },
    environment: { ...run.environment, hostname: 'runner-b', cpuModel: 'Intel Xeon (KVM guest)' },
  }));
  return [...noisyHistory({ nights, stepAt }), ...b];
}

export { WORKLOAD };
