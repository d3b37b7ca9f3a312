import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { compareCommand } from '../../../src/adapters/cli/commands/compare.js';
import { statCommand } from '../../../src/adapters/cli/commands/stat.js';
import type { Decision } from '../../../src/core/compare/decision/decision.js';
import type { RunComparison, SampleComparison } from '../../../src/core/compare/comparison-types.js';
import { UserError } from '../../../src/core/util/errors.js';
import { vectorCase } from '../stats/vectors.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';

let dir: string;
let stdout: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pgperf-stats-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  // The commands set the exit code of a gate; this process is the test runner's.
  process.exitCode = undefined;
});

async function file(name: string, content: string): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, content);
  return p;
}

async function run(make: typeof statCommand, args: string[]): Promise<string> {
  stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  await make().exitOverride().parseAsync(args, { from: 'user' });
  return stdout;
}

describe('pgperf stat', () => {
  const c = vectorCase('n5_minus3pct');

  it('compares two files of one number per line, ministat style', async () => {
    const base = await file('base.txt', `# TPS\n${c.base.join('\n')}\n\n`);
    const head = await file('head.txt', c.head.join('\r\n'));
    const out = await run(statCommand, [base, head]);
    const lines = out.split('\n');
    expect(lines[0]).toBe('verdict: regression (alpha 0.05, threshold 2%)');
    expect(out).toContain(`base  ${base}: n 5, median 37719.4`);
    expect(out).toMatch(/delta {2}-2\.97% \(Hodges-Lehmann on ln, head vs base\)/);
    expect(out).toMatch(/95% CI \[-3\.70%, -2\.33%\] \(achieved 96\.8%\)/);
    expect(out).toMatch(/p {6}0\.0079 \(Mann-Whitney, exact\)/);
  });

  it('prints the same fields as JSON and honours --alpha and --threshold', async () => {
    const base = await file('b.txt', c.base.join('\n'));
    const head = await file('h.txt', c.head.join('\n'));
    const json = JSON.parse(
      await run(statCommand, [base, head, '--json', '--alpha', '0.005', '--threshold', '3']),
    ) as SampleComparison;
    expect(json).toMatchObject({ alpha: 0.005, thresholdPct: 3, verdict: 'inconclusive', method: 'exact' });
    // 5 + 5 runs: min p 0.0079 ≥ 0.005, and the 90% CI [-3.51%, -2.49%] crosses -3%.
    expect(json.reasons.map((r) => r.code)).toEqual(['too-few-runs', 'ci-wider-than-threshold']);
    expect(json.base.n).toBe(5);
    expect(json.ci95!.lowerPct).toBeCloseTo(-3.70180861838, 9);
  });

  it('refuses an empty file; reports unusable values as an inconclusive result, not an error', async () => {
    const empty = await file('empty.txt', '# nothing\n\n');
    const weird = await file('weird.txt', '0\n-3\nNaN\ninf\n100\n');
    await expect(run(statCommand, [empty, weird])).rejects.toThrow(
      `${empty}: no values (empty, or only blank and # lines); expected one number per line`,
    );
    const zero = await file('zero.txt', '0\n');
    const json = JSON.parse(await run(statCommand, [zero, weird, '--json'])) as SampleComparison;
    expect(json.verdict).toBe('inconclusive');
    expect(json.reasons[0]!.message).toBe(
      'base has 0 usable run(s) and head has 1 usable run(s); at least 2 per arm are needed',
    );
    expect(json.head.invalid).toBe(4);
  });

  it('rejects unreadable input with a message naming the file, line and expectation', async () => {
    const bad = await file('bad.txt', '100\n1,5\n');
    const good = await file('good.txt', '100\n101\n');
    await expect(run(statCommand, [bad, good])).rejects.toThrow(
      new UserError(`${bad} line 2: '1,5' is not a number; expected one number per line`),
    );
    await expect(run(statCommand, [path.join(dir, 'missing.txt'), good])).rejects.toThrow(
      /base file .*missing\.txt: cannot read it \(ENOENT\)/,
    );
    await expect(run(statCommand, [good, good, '--alpha', '5'])).rejects.toThrow(
      "--alpha must be a number between 0 and 1, got '5'",
    );
    await expect(run(statCommand, [good, good, '--threshold', 'x'])).rejects.toThrow(
      /--threshold must be a positive percentage/,
    );
  });
});

describe('pgperf compare', () => {
  it('renders the comparison of a results file, or prints it as JSON', async () => {
    const results = syntheticRun({
      seed: 1,
      rounds: 8,
      workloads: { tpcb: [1, 8] },
      effect: (arm) => (arm === 'head' ? 0.95 : 1),
    });
    const p = await file('results.json', JSON.stringify(results));
    expect((await run(compareCommand, [p])).split('\n')[0]).toMatch(/^FAILED: 2 regressions: tpcb at /);
    const json = JSON.parse(await run(compareCommand, [p, '--json'])) as {
      decision: Decision;
      comparison: RunComparison;
    };
    expect(json.decision).toMatchObject({ verdict: 'regression', outcome: 'failed', exitCode: 1 });
    expect(json.comparison.verdict).toBe('regression');
    expect(json.comparison.comparisons[0]!.cells.map((x) => x.id)).toEqual(['tpcb@1', 'tpcb@8']);
    expect(process.exitCode).toBe(1);
    await run(compareCommand, [p, '--fail-on', 'never']);
    expect(process.exitCode).toBe(0);
  });

  it('rejects files that are not results documents, naming the file and the problem', async () => {
    const notJson = await file('not.json', '{');
    await expect(run(compareCommand, [notJson])).rejects.toThrow(new RegExp(`${notJson} is not valid JSON`));
    const v2 = await file(
      'v2.json',
      JSON.stringify({ ...syntheticRun({ seed: 1, rounds: 1 }), schemaVersion: 2 }),
    );
    await expect(run(compareCommand, [v2])).rejects.toThrow(
      `${v2}: schemaVersion is 2; this pgperf reads schemaVersion 1`,
    );
    const broken = syntheticRun({ seed: 1, rounds: 1 });
    (broken.samples[3] as unknown as Record<string, unknown>).clients = 'many';
    const badSample = await file('bad-sample.json', JSON.stringify(broken));
    await expect(run(compareCommand, [badSample])).rejects.toThrow(
      `${badSample}: samples[3].clients is "many": Invalid input: expected number, received string`,
    );
    await expect(run(compareCommand, [path.join(dir, 'nope.json')])).rejects.toThrow(UserError);
  });
});
