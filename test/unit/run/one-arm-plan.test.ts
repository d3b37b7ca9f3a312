/**
 * The plan check before the rounds (src/run/rounds.ts warnUnderpoweredPlan) speaks of comparisons: a run of
 * one arm (a nightly run, the runner canary's) compares nothing, so it is never told that its rounds "can
 * never reach significance after Holm".
 */
import { describe, expect, it } from 'vitest';
import { warnUnderpoweredPlan } from '../../../src/run/rounds.js';
import { workloadSchema } from '../../../src/drivers/workload.js';
import { sameInstallRequest } from '../../helpers/run-request.js';

const workload = workloadSchema.parse({
  name: 'select-only',
  tool: 'pgbench',
  builtin: 'select-only',
  clients: [1, 4, 16],
  rounds: 3,
});

function warnings(arms: number): string[] {
  const req = sameInstallRequest('/opt/pg/bin', '/tmp/unused', [workload]);
  const out: string[] = [];
  warnUnderpoweredPlan({ ...req, arms: req.arms.slice(0, arms) }, [workload], (m) => out.push(m));
  return out;
}

describe('warnUnderpoweredPlan', () => {
  it('warns a comparison of two arms that 3 rounds can never reach significance after Holm', () => {
    expect(warnings(2).some((w) => w.includes('can never reach significance after Holm'))).toBe(true);
  });

  it('says nothing of a run of one arm: nothing is compared', () => {
    expect(warnings(1)).toEqual([]);
  });
});
