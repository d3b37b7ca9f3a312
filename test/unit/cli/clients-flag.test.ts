/**
 * `--clients` on `pgperf run` and `pgperf plan`, through main(): the list replaces every workload's own
 * client counts before anything is planned, as the Action's `client-counts` does. Nothing is started: the
 * run is refused by its plan check (2 rounds decide nothing), whose message names the cells it would run.
 * The real run with --clients is in test/integration/doc-commands.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/main-in-process.js';

describe('--clients', () => {
  it('run: every workload measures the given client counts instead of its own', async () => {
    const ran = await runMain([
      'run',
      ...['--arm', 'base=/nonexistent/bin', '--arm', 'head=/nonexistent/bin'],
      ...['--workload', 'smoke', '--clients', '1,3,5', '--rounds', '2', '--no-store'],
    ]);
    expect(ran.code).toBe(2);
    // smoke's own client counts are 1 and 2.
    expect(ran.stderr).toContain('Holm over 3 hypotheses');
    expect(ran.stderr).toContain('smoke (smoke@1, smoke@3, smoke@5): 2 rounds');
  });

  it('plan: the split over machines is of the given client counts, as run --shard will measure them', async () => {
    const ran = await runMain(['plan', '--workload', 'smoke', '--clients', '1,3', '--shards', '2', '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    const plan = JSON.parse(ran.stdout) as { shards: Array<{ cells: Array<{ clients: number }> }> };
    expect(plan.shards.flatMap((s) => s.cells.map((c) => c.clients)).sort()).toEqual([1, 3]);
  });

  it('a bad list is refused while the flags are parsed, naming the flag, the value and the form', async () => {
    const ran = await runMain(['run', '--workload', 'smoke', '--clients', '1,4,x']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      "--clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to 10000; got '1,4,x' (bad: 'x')",
    );
  });
});
