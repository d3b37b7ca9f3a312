/**
 * The plan phase end to end through `pgperf run` (src/cli.ts through tsx; no dist build needed) on real
 * PostgreSQL 15 (Debian's install as both arms) and pgbench: a select-only workload with `plans: true`
 * whose head turns index and bitmap scans off reports "plan changed" for its statement, with both plans and
 * pg_stat_statements' counters in results.json and the comment; the same install as both arms reports
 * "none changed". The builtin scripts pgperf keeps are the ones this pgbench prints.
 */
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/core/results/result-types.js';
import { BUILTIN_SCRIPT_TEXT, scriptStatements } from '../../src/drivers/pgbench/statements.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { isolatedEnv, onlyResultsFile, runCli, sameInstallRun, type Ran } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

const BIN = '/usr/lib/postgresql/15/bin';
const SELECT = 'SELECT abalance FROM pgbench_accounts WHERE aid = :aid';
const tmp = useTmpDir('pgperf-it-plans-', { killLeftovers: true });
let workload: string;

beforeAll(async () => {
  workload = path.join(tmp(), 'so.yml');
  await writeFile(
    workload,
    'name: so\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\nwarmup: 0\nrounds: 1\nplans: true\n',
  );
  await chmod(workload, 0o644);
});

function pgperf(args: string[]): Promise<Ran> {
  return runCli(args, { source: true, cwd: tmp(), env: isolatedEnv(tmp()), killAfterMs: 90_000 });
}

/**
 * `pgperf run` of the workload with Debian's PostgreSQL 15 as base and head, and `extra` flags; saved to
 * the directory store `store` when given.
 */
async function run(
  out: string,
  extra: string[] = [],
  store?: string,
): Promise<{ ran: Ran; result: RunResult }> {
  const ran = await pgperf([
    ...sameInstallRun(BIN, {
      workload,
      seed: 7,
      ...(store ? { store } : { noStore: true }),
      force: true,
      noInstructions: true, // the plan phase on its own servers is the question (plans by default: instructions.int)
      out: path.join(tmp(), out),
      tmpDir: tmp(),
    }),
    ...extra,
  ]);
  expect(ran.code, ran.stderr).toBe(0);
  const result = JSON.parse(
    await readFile(await onlyResultsFile(path.join(tmp(), out)), 'utf8'),
  ) as RunResult;
  return { ran, result };
}

describe('plans: true (real PostgreSQL 15 and pgbench)', () => {
  it('a head without index scans: "plan changed" for the lookup, both plans recorded', async () => {
    const store = path.join(tmp(), 'store');
    const { ran, result } = await run(
      'changed',
      ['--set', 'head:enable_indexscan=off', '--set', 'head:enable_bitmapscan=off'],
      store,
    );
    expect(ran.stdout).toMatch(
      /^plan changed: SELECT abalance FROM pgbench_accounts WHERE aid = :aid \(so: Index Scan using pgbench_accounts_pkey on pgbench_accounts -> Seq Scan on pgbench_accounts\)$/m,
    );
    expect(ran.stderr).toMatch(/^plans: 1 statement\(s\) of 1 workload\(s\) x 2 arms in [\d.]+ s$/m);
    const plans = result.plans!;
    expect(plans.arms).toEqual(['base', 'head']);
    expect(plans.plans).toEqual([
      {
        workload: 'so',
        arm: 'base',
        statement: SELECT,
        plan: 'Index Scan using pgbench_accounts_pkey on pgbench_accounts\n  Index Cond: (aid = 1)',
      },
      {
        workload: 'so',
        arm: 'head',
        statement: SELECT,
        plan: 'Seq Scan on pgbench_accounts\n  Filter: (aid = 1)',
      },
    ]);
    // Debian's postgresql-15 ships pg_stat_statements: every call of the counted run, on each arm.
    expect(plans.notes).toEqual([]);
    const [base, head] = plans.stats;
    expect(base).toMatchObject({ arm: 'base', statement: SELECT, calls: base!.transactions });
    expect(head).toMatchObject({ arm: 'head', statement: SELECT, calls: head!.transactions });
    const blocks = (s: typeof base) => (s!.sharedBlksHit + s!.sharedBlksRead) / s!.calls;
    // An index lookup touches a few blocks; the scan reads the whole table (1,640 blocks at scale 1).
    expect(blocks(base)).toBeLessThan(10);
    expect(blocks(head)).toBeGreaterThan(1000);
    // The store keeps the plans too: its copy is the document as measured, plans included.
    const saved = (await readdir(store, { recursive: true })).filter((f) => f.endsWith('.json'));
    const copies = await Promise.all(
      saved.map(async (f) => JSON.parse(await readFile(path.join(store, f), 'utf8')) as Partial<RunResult>),
    );
    expect(copies.find((d) => d.samples !== undefined)?.plans).toEqual(plans);

    const md = await pgperf([
      'compare',
      await onlyResultsFile(path.join(tmp(), 'changed')),
      '--format',
      'markdown',
    ]);
    expect(md.stdout).toContain('<details><summary>Query plans: plan changed in 1 of 1 statement</summary>');
    expect(md.stdout).toContain(`**plan changed: \`${SELECT}\`** (so)`);
    expect(md.stdout).toContain('<pre>Seq Scan on pgbench_accounts\n  Filter: (aid = 1)</pre>');
  });

  it('the same install as both arms: none changed', async () => {
    const { ran, result } = await run('unchanged');
    expect(ran.stdout).toMatch(/^plans: 1 statement, none changed$/m);
    expect(ran.stdout).not.toContain('plan changed');
    expect(new Set(result.plans!.plans.map((p) => p.plan)).size).toBe(1);
  });

  it("the builtin scripts pgperf keeps are this pgbench's", async () => {
    for (const [name, text] of Object.entries(BUILTIN_SCRIPT_TEXT)) {
      const shown = await nodeProcessRunner.run(path.join(BIN, 'pgbench'), [`--show-script=${name}`]);
      expect(scriptStatements(shown.stderr + shown.stdout)).toEqual(scriptStatements(text));
    }
  });
});
