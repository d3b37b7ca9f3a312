/**
 * A real results document (fixtures/results, pgperf on PostgreSQL 15, smoke + select-only) split into
 * shards by cell, as the matrix jobs of one plan would write them.
 */
import { readFileSync } from 'node:fs';
import type { ShardFile } from '../../../src/flows/consolidate/shard-merge.js';
import { cellId, type RunResult } from '../../../src/core/results/result-types.js';

export const whole = JSON.parse(
  readFileSync(new URL('../../fixtures/results/pgperf-15-smoke-select-only.json', import.meta.url), 'utf8'),
) as RunResult;

/**
 * The document measured for `rounds` rounds (its 3 rounds' samples repeated in turn) with head as fast as
 * base everywhere but in the cell `regressed`, where its TPS is base's × `factor`: a change the signed-rank
 * test certifies, and no other.
 */
export function withRegression(regressed: string, factor: number, rounds = 12): RunResult {
  const baseTps = new Map(
    whole.samples.filter((s) => s.arm === 'base').map((s) => [`${s.round}/${cellId(s)}`, s.metrics.tps!]),
  );
  const samples = Array.from({ length: rounds }, (_, i) =>
    whole.samples
      .filter((s) => s.round === (i % whole.plan.rounds) + 1)
      .map((s) => {
        if (s.arm !== 'head') return { ...s, round: i + 1 };
        const tps = baseTps.get(`${s.round}/${cellId(s)}`)! * (cellId(s) === regressed ? factor : 1);
        return { ...s, round: i + 1, metrics: { ...s.metrics, tps } };
      }),
  ).flat();
  return { ...whole, plan: { ...whole.plan, rounds, executed: [] }, samples };
}

/** The document as `count` shards (cells dealt round-robin), as if run on a machine of `cpu`. */
export function shardDocuments(count: number, cpu = whole.environment.cpuModel, doc = whole): ShardFile[] {
  const allCells = doc.plan.cells;
  return Array.from({ length: count }, (_, i) => {
    const cells = allCells.filter((_, j) => j % count === i);
    const ids = new Set(cells.map(cellId));
    const result: RunResult = {
      ...doc,
      environment: { ...doc.environment, cpuModel: cpu },
      plan: {
        ...doc.plan,
        cells,
        shard: { planId: '0123456789abcdef', index: i + 1, count, allCells },
      },
      samples: doc.samples.filter((s) => ids.has(cellId(s))),
    };
    return { file: `${cpu}/shard-${i + 1}/results.json`, result };
  });
}
