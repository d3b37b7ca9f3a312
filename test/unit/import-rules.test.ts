/**
 * The storeys of src/ (scripts/layers.mjs, checked by scripts/check-layers.mjs in the lint step): an import
 * up a storey, up a room within a storey, or in a circle is named; imports down pass; the source tree
 * itself keeps the rule.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { checkLayers, src } from '../../scripts/check-layers.mjs';

const check = checkLayers as (graph?: Map<string, string[]>) => string[];
const at = (file: string) => path.join(src as string, file);
const graph = (edges: Array<[string, string[]]>) =>
  new Map(edges.map(([f, ts]) => [at(f), ts.map(at)] as [string, string[]]));

describe('storeys of src/', () => {
  it.each<[string, Array<[string, string[]]>, string]>([
    [
      'names an import of a higher storey',
      [
        ['core/stats/holm.ts', ['postgres/cluster/cluster.ts']],
        ['postgres/cluster/cluster.ts', []],
      ],
      'src/core/stats/holm.ts imports src/postgres/cluster/cluster.ts: src/postgres/cluster is not below src/core/stats',
    ],
    [
      'names an import of a higher room of the same storey, type imports alike',
      [
        ['drivers/common/driver.ts', ['drivers/registry.ts']],
        ['drivers/registry.ts', []],
      ],
      'src/drivers/common/driver.ts imports src/drivers/registry.ts: src/drivers is not below src/drivers/common',
    ],
  ])('%s', (_name, edges, problem) => {
    expect(check(graph(edges))).toEqual([problem]);
  });

  it('allows its own room, rooms below and lower storeys; names a circle inside one room', () => {
    expect(
      check(
        graph([
          [
            'core/compare/verdict.ts',
            ['core/compare/power.ts', 'core/stats/holm.ts', 'core/results/result-types.ts'],
          ],
          ['core/compare/power.ts', []],
          ['core/stats/holm.ts', []],
          ['core/results/result-types.ts', []],
        ]),
      ),
    ).toEqual([]);
    expect(
      check(
        graph([
          ['run/shards.ts', ['run/shard-digest.ts']],
          ['run/shard-digest.ts', ['run/shards.ts']],
        ]),
      ),
    ).toEqual(['circle: src/run/shards.ts -> src/run/shard-digest.ts -> src/run/shards.ts']);
  });

  it('holds for every file of src/', () => {
    expect(check()).toEqual([]);
  });
});
