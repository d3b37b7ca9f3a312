/**
 * A real results document (fixtures/results, pgperf on PostgreSQL 15, smoke + select-only) split into
 * shards by cell, as the matrix jobs of one plan would write them.
 */
import { readFileSync } from 'node:fs';
import type { ShardFile } from '../../../src/flows/consolidate/consolidate.js';
import { cellId, type RunResult } from '../../../src/core/results/types.js';

export const whole = JSON.parse(
  readFileSync(new URL('../../fixtures/results/pgperf-15-smoke-select-only.json', import.meta.url), 'utf8'),
) as RunResult;

/** The document as `count` shards (cells dealt round-robin), as if run on a machine of `cpu`. */
export function shardDocuments(count: number, cpu = whole.environment.cpuModel): ShardFile[] {
  const allCells = whole.plan.cells;
  return Array.from({ length: count }, (_, i) => {
    const cells = allCells.filter((_, j) => j % count === i);
    const ids = new Set(cells.map(cellId));
    const result: RunResult = {
      ...whole,
      environment: { ...whole.environment, cpuModel: cpu },
      plan: {
        ...whole.plan,
        cells,
        shard: { planId: '0123456789abcdef', index: i + 1, count, allCells },
      },
      samples: whole.samples.filter((s) => ids.has(cellId(s))),
    };
    return { file: `${cpu}/shard-${i + 1}/results.json`, result };
  });
}
