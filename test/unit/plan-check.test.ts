import { describe, expect, it } from 'vitest';
import { designSequential } from '../../src/core/compare/analysis/adaptive.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { designReach, refuseUnreachablePlan } from '../../src/flows/compare/noise/design-check.js';
import { checkRecordable, recordedMetrics } from '../../src/drivers/recorded-metrics.js';

const workload = (clients: string, extra = '') =>
  parseWorkload(
    `name: w\ntool: pgbench\nbuiltin: select-only\nclients: ${clients}\nrounds: 5\n${extra}`,
    'w.yml',
  );
const seven = workload('[1, 2, 4, 8, 16, 32, 64]');

describe('the pre-run plan check', () => {
  it('counts every head arm, cell and gated metric in the Holm family', () => {
    expect(designReach({ workloads: [seven], arms: 2, alpha: 0.05 }).familySize).toBe(7);
    expect(designReach({ workloads: [seven], arms: 3, alpha: 0.05 }).familySize).toBe(14);
    const gated = workload('[1, 2]', 'metrics: [tps, p95, p99]\n');
    expect(designReach({ workloads: [gated], arms: 2, alpha: 0.05 }).familySize).toBe(6);
    expect(designReach({ workloads: [gated], arms: 2, alpha: 0.05, singleMetric: true }).familySize).toBe(2);
  });

  it('refuses 2 rounds over 7 cells, naming the cells, rounds, smallest p and alpha; 5 rounds can reach it', () => {
    expect(() => refuseUnreachablePlan({ workloads: [seven], arms: 2, alpha: 0.05, rounds: 2 })).toThrow(
      /Holm over 7 hypotheses .*w \(w@1, w@2, w@4, w@8, w@16, w@32, w@64\): 2 rounds, smallest p 0\.33 x 7 = 1; each is >= alpha 0\.05\. Plan at least 6 rounds/,
    );
    // 5 rounds: the rank-sum floor 2/C(10,5) = 0.0079, x 7 = 0.056 >= 0.05: still refused (issue 15).
    expect(designReach({ workloads: [seven], arms: 2, alpha: 0.05 }).reachable).toBe(false);
    expect(designReach({ workloads: [seven], arms: 2, alpha: 0.05, rounds: 6 }).reachable).toBe(true);
  });

  it('a single arm has nothing to compare; an adaptive design is judged at its last look', () => {
    expect(designReach({ workloads: [seven], arms: 1, alpha: 0.05, rounds: 1 }).reachable).toBe(true);
    const adaptive = designSequential({ schedule: [6, 10, 15, 20, 30] });
    const r = designReach({ workloads: [seven], arms: 2, alpha: 0.05, adaptive });
    expect(r.level).toBe(adaptive.lookAlpha.at(-1));
    expect(r.reachable).toBe(true);
  });

  it('a --metric a workload does not record is an error naming the flag, the workload and what it records', () => {
    const sb = parseWorkload('name: sb\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\n', 'sb.yml');
    expect(() => checkRecordable([seven, sb], 'latencyStddevMs')).toThrow(
      /--metric latencyStddevMs: workload sb \(sysbench\) does not record latency stddev; it records tps, qps, latencyAvgMs, latencyPctMs/,
    );
    expect(() => checkRecordable([seven], 'latencyP99Ms')).toThrow(/add p99 to the workload's metrics field/);
    expect(() => checkRecordable([workload('[1]', 'metrics: [p99]\n')], 'latencyP99Ms')).not.toThrow();
    expect(() => checkRecordable([seven, sb], 'tps')).not.toThrow();
    expect(() => checkRecordable([seven], undefined)).not.toThrow();
    expect(recordedMetrics(workload('[1]', 'metrics: [tps, p95]\n'))).toContain('latencyP95Ms');
  });
});
