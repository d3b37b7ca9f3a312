/**
 * workloadDefinitionHash (src/core/results/workload-definition.ts): what one timed run measures, and only
 * that, tells two definitions of a workload apart.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkloads } from '../../src/drivers/load-workload.js';
import {
  WORKLOAD_HASH_IGNORED as DEFINITION_IGNORED,
  workloadDefinitionHash,
} from '../../src/core/results/workload-definition.js';

const [resolved] = parseWorkloads(
  'name: ro\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1, 4]\nduration: 30\nwarmup: 5\n',
  'ro.yml',
);
const hash = workloadDefinitionHash(resolved);

describe('a workload definition hash', () => {
  it('is 16 hex digits, the same for the document written to and read back from results.json, in any key order', () => {
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(workloadDefinitionHash(JSON.parse(JSON.stringify(resolved)))).toBe(hash);
    const reversed = Object.fromEntries(Object.entries(resolved!).reverse());
    expect(workloadDefinitionHash(reversed)).toBe(hash);
  });

  it.each([
    ['the builtin script', { builtin: 'tpcb-like' }],
    ['custom scripts', { builtin: undefined, scripts: [{ file: '/w/ro.sql', weight: 1 }] }],
    ['the duration', { duration: 60 }],
    ['the warm-up', { warmup: 0 }],
    ['the scale', { scale: 10 }],
    ['a setting', { settings: { shared_buffers: '1GB' } }],
    ['the metrics', { metrics: ['tps', 'p99'] }],
    ['the query mode', { mode: 'simple' }],
  ])('changes with %s', (_, change) => {
    expect(workloadDefinitionHash({ ...resolved, ...change })).not.toBe(hash);
  });

  it('does not change with what no timed run measures: name, description, rounds, clients, judging, counted evidence', () => {
    expect(DEFINITION_IGNORED).toEqual([
      'name',
      'description',
      'rounds',
      'threshold',
      'retries',
      'clients',
      'maxIgnoredErrorsPct',
      'instructions',
      'plans',
    ]);
    const judged = {
      ...resolved,
      name: 'renamed',
      description: 'another text',
      rounds: 40,
      threshold: 5,
      retries: 3,
      clients: [1, 2, 4, 8],
      maxIgnoredErrorsPct: 1,
      instructions: { short: 1000 },
      plans: true,
    };
    expect(workloadDefinitionHash(judged)).toBe(hash);
  });
});
