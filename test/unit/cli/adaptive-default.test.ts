/**
 * Issue #38: a comparison's timed rounds are adaptive by default where no rounds are given, through main()
 * as a user types the flags. Nothing is started: a run is refused by its plan check, whose message names the
 * rounds it would run and the level it tests at (a fixed design: alpha; an adaptive one: its last look's);
 * `pgperf plan` prints the same rounds line as the run's plan line.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/main-in-process.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const tmp = useTmpDir('pgperf-adaptive-default-');
/** 100 cells: more than few rounds can decide after Holm. */
const MANY_CLIENTS = Array.from({ length: 100 }, (_, i) => i + 1).join(',');

function run(...flags: string[]) {
  return runMain([
    'run',
    ...['--arm', 'base=/nonexistent/bin', '--arm', 'head=/nonexistent/bin'],
    ...['--no-store', '--out', path.join(tmp(), 'out'), '--clients', MANY_CLIENTS],
    ...flags,
  ]);
}

describe('pgperf run: the rounds', () => {
  it('are adaptive by default: --schedule alone shapes them, and the plan check tests the last look', async () => {
    const ran = await run('--workload', 'select-only', '--schedule', '6');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/select-only \(select-only@1, .*\): 6 rounds, smallest p /);
    expect(ran.stderr).toContain("each is >= the last look's level 0.05");
  });

  it('are fixed with --fixed-rounds: the default 10 for a workload that sets none', async () => {
    // At alpha 0.001 ten rounds of 100 cells cannot decide: the refusal names the rounds it would run.
    const ran = await run('--workload', 'select-only', '--fixed-rounds', '--alpha', '0.001');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/select-only \(select-only@1, .*\): 10 rounds, .* each is >= alpha 0\.001/);
  });

  it('are fixed when a workload sets them (smoke: 5), or by --rounds', async () => {
    const own = await run('--workload', 'smoke');
    expect(own.stderr).toMatch(/smoke \(smoke@1, .*\): 5 rounds, .* each is >= alpha 0\.05/);
    const given = await run('--workload', 'select-only', '--rounds', '4');
    expect(given.stderr).toMatch(/select-only \(select-only@1, .*\): 4 rounds, .* each is >= alpha 0\.05/);
  });

  it('refuses the opt-out with adaptive rounds asked for', async () => {
    const ran = await run('--workload', 'select-only', '--fixed-rounds', '--max-rounds', '20');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      '--fixed-rounds and --max-rounds/--time-budget both given: fixed rounds or adaptive ones, give one',
    );
  });
});

describe('pgperf plan: the rounds line', () => {
  const plan = async (...flags: string[]) => {
    const ran = await runMain(['plan', '--store', path.join(tmp(), 'store'), ...flags]);
    expect(ran.code, ran.stderr).toBe(0);
    return ran.stdout.split('\n')[1];
  };

  it('says the adaptive default, or the fixed rounds and where they come from', async () => {
    expect(await plan('--workload', 'select-only')).toBe(
      'rounds: adaptive (looks at 6, 10, 15, 20, 30; obrien-fleming alpha spending; decided cells stop; ' +
        'at most 20 min of measurement, never before the first look; --fixed-rounds to turn off)',
    );
    expect(await plan('--workload', 'select-only', '--fixed-rounds')).toBe(
      'rounds: 10 (the default); fixed: --fixed-rounds',
    );
    expect(await plan('--workload', 'smoke')).toBe('rounds: 5 (workload smoke)');
    expect(await plan('--workload', 'select-only', '--rounds', '8')).toBe('rounds: 8 (--rounds)');
    expect(await plan('--workload', 'select-only', '--shards', '2')).toBe(
      'rounds: 10 (the default); fixed: every shard of a matrix runs the same rounds',
    );
  });
});
