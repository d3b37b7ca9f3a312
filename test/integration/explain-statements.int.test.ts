/**
 * EXPLAIN executes nothing (issue #40 item 7), against a real PostgreSQL server (the installed one, started by
 * testkit/pg-server.ts). The workload script of the finding: an apostrophe inside a `/* *\/` comment used to
 * glue the next statement (an UPDATE) to a SELECT, and `EXPLAIN (COSTS OFF) SELECT ... ; UPDATE ...`, sent as
 * one query string as psql -c sends it, ran the UPDATE (bbalance became 1). Now the statements are cut by
 * the lexer (src/postgres/sql-statements.ts), each is explained alone, and bbalance stays 0. The control
 * sends the old glued text through the same connection and sees the UPDATE run, so the check can fail; and
 * explainPlan refuses that text without sending it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isPlannable, scriptStatements, withValues } from '../../src/drivers/pgbench/statements.js';
import { explainPlan, type SqlTarget } from '../../src/postgres/plan-capture.js';
import { startTestPgServer, type TestPgServer } from '../../testkit/pg-server.js';

let server: TestPgServer;
const SCRIPT = [
  '\\set bid random(1, 1 * :scale)',
  "SELECT bbalance FROM pgbench_branches WHERE bid = :bid /* the branch's balance */;",
  'UPDATE pgbench_branches SET bbalance = 1 WHERE bid = :bid;',
  '',
].join('\n');

/** Sends SQL as one simple-protocol query string (as psql -c does: every statement in it runs). */
const target = (): SqlTarget => ({
  psql: async (sql) => {
    const res = await server.admin(sql);
    const results = Array.isArray(res) ? res : [res];
    return results
      .flatMap((r: { rows: Array<Record<string, unknown>> }) =>
        r.rows.map((row) => Object.values(row).join('|')),
      )
      .join('\n');
  },
});
const balance = async () =>
  (await server.admin('SELECT bbalance FROM pgbench_branches WHERE bid = 1')).rows[0]?.bbalance as number;

beforeAll(async () => {
  server = await startTestPgServer('explain');
  await server.admin('CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88))');
  await server.admin('INSERT INTO pgbench_branches VALUES (1, 0, NULL)');
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

it('the apostrophe-in-comment script: each statement explained alone, nothing executed', async () => {
  const statements = scriptStatements(SCRIPT).filter(isPlannable);
  expect(statements).toHaveLength(2);
  const plans = [];
  for (const s of statements) plans.push(await explainPlan(target(), withValues(s)));
  expect(plans).toEqual([
    { plan: expect.stringContaining('pgbench_branches') },
    { plan: expect.stringMatching(/^Update on pgbench_branches/) },
  ]);
  expect(await balance()).toBe(0);
});

it('the control: the glued text of the old splitter runs the UPDATE when sent; explainPlan never sends it', async () => {
  const glued =
    "SELECT bbalance FROM pgbench_branches WHERE bid = 1 /* the branch's balance */ ; UPDATE pgbench_branches SET bbalance = 1 WHERE bid = 1";
  expect(await explainPlan(target(), glued)).toEqual({
    error: expect.stringMatching(/^not explained: it holds more than one statement/),
  });
  expect(await balance()).toBe(0);
  await target().psql(`EXPLAIN (COSTS OFF) ${glued}`);
  expect(await balance()).toBe(1);
});
