/**
 * The plan phase of the compare pipeline (docs/plans.md): before the timed rounds, for every workload with
 * `plans: true`, each arm gets a short-lived server of its own with the workload's data set, and pgperf
 * takes the plan of every statement the workload runs (`EXPLAIN (COSTS OFF)` of the statement with
 * representative values, normalised), then, where the install has pg_stat_statements, each statement's
 * calls, execution time and shared blocks over a short fixed-transaction pgbench run at 1 client (after a
 * warm-up run of its own). A plan that differs between base and a head explains a throughput change without
 * noise; the report names it. Failures are recorded and warned about, never fatal: the rounds decide.
 */
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import { resolveRunAs, type RunAsUser } from '../../postgres/cluster/run-as.js';
import { NO_EXPLAIN_MEMORY } from '../../postgres/memory/planner-memory.js';
import {
  STAT_STATEMENTS,
  createStatStatements,
  explainPlan,
  hasStatStatements,
  readStatStatements,
  resetStatStatements,
  statementKey,
  withStatStatements,
} from '../../postgres/plan-capture.js';
import type { Workload } from '../../drivers/workload.js';
import type { WorkloadStatement } from '../../drivers/common/driver.js';
import { listsStatements, statementsOf } from '../../drivers/registry.js';
import { emptyPlansRecord, type PlansRecord } from '../../core/results/plans.js';
import type { ArmSpec } from '../run-loop.js';
import { countingClient, loadedCountingCluster } from './counted-runs.js';
import type { PgCluster } from '../../postgres/cluster/cluster.js';

/** Transactions of the counted run whose pg_stat_statements counters are kept (1 client). */
export const PLAN_TRANSACTIONS = 200;
/** Uncounted transactions before it, so the counted run finds the caches warm. */
const WARMUP_TRANSACTIONS = 50;
/** The seed of both runs, the same for every arm: every arm runs the same keys. */
const SEED = 4242;
/** The application_name of the plan phase's client sessions. */
const PLAN_APPLICATION = 'pgperf-plans';

export interface PlanPhaseRequest {
  arms: readonly ArmSpec[];
  workloads: readonly Workload[];
  clientBinDir?: string;
  runAs?: string;
  tmpDir?: string;
  dataChecksums: boolean;
}

export interface PlanPhaseDeps {
  runner: ProcessRunner;
  logger: Logger;
  signal?: AbortSignal;
}

/** The workloads that ask for plans. */
function planWorkloads(workloads: readonly Workload[]): Workload[] {
  return workloads.filter((w) => w.plans === true);
}

/** A UserError, before anything is built or run, for a workload whose statements pgperf cannot list. */
export function checkDesignWorkloads(workloads: readonly Workload[]): void {
  for (const w of planWorkloads(workloads)) {
    if (!listsStatements(w)) {
      throw new UserError(
        `workload ${w.name}: plans: only pgbench workloads list their statements for now (tool ${w.tool}); drop plans from this workload`,
      );
    }
  }
}

/** Runs the phase; undefined when no workload asks for it. */
export async function runPlanPhase(
  req: PlanPhaseRequest,
  deps: PlanPhaseDeps,
): Promise<PlansRecord | undefined> {
  const workloads = planWorkloads(req.workloads);
  if (workloads.length === 0) return undefined;
  if (req.arms.length < 2) {
    deps.logger.warn('plans: one arm, no plan of base to compare with: not taken');
    return undefined;
  }
  const started = Date.now();
  const record = emptyPlansRecord(req.arms.map((a) => a.label));
  const runAs = await resolveRunAs(req.runAs, deps);
  const stats = new Map<string, boolean>();
  for (const arm of req.arms) {
    const has = await hasStatStatements(arm.binDir, { runner: deps.runner, runAs });
    stats.set(arm.label, has);
    if (!has) {
      record.notes.push(
        `arm ${arm.label}: ${STAT_STATEMENTS} is not installed (contrib; Debian's postgresql-NN package has it, a build needs contrib built): plans only, no per-statement counters`,
      );
    }
  }
  for (const w of workloads) {
    deps.signal?.throwIfAborted();
    let statements: WorkloadStatement[];
    try {
      statements = (await statementsOf(w)) ?? [];
    } catch (e) {
      record.failures.push({
        workload: w.name,
        reason: `its statements could not be read: ${errorMessage(e)}`,
      });
      deps.logger.warn(`plans ${w.name}: ${errorMessage(e)}`);
      continue;
    }
    record.statements.push(...statements.map((s) => ({ workload: w.name, ...s })));
    if (w.tool === 'pgbench' && w.pipeline !== undefined) {
      record.notes.push(
        `${w.name}: the per-statement counters come from runs without pipeline (the same statements)`,
      );
    }
    await deps.logger.group(`plans: ${w.name}`, async () => {
      for (const arm of req.arms) {
        deps.signal?.throwIfAborted();
        try {
          await captureArm(
            w,
            statements,
            arm,
            stats.get(arm.label) === true,
            req,
            { ...deps, runAs },
            record,
          );
        } catch (e) {
          if (deps.signal?.aborted) throw e;
          record.failures.push({ workload: w.name, arm: arm.label, reason: errorMessage(e) });
          deps.logger.warn(`plans ${w.name} ${arm.label}: not taken: ${errorMessage(e)}`);
        }
      }
    });
  }
  record.wallS = (Date.now() - started) / 1000;
  const planned = record.statements.filter((s) => s.explained !== undefined).length;
  deps.logger.info(
    `plans: ${planned} statement(s) of ${workloads.length} workload(s) x ${req.arms.length} arms in ${record.wallS.toFixed(1)} s`,
  );
  return record;
}

/** The plan of every statement that has one, on `cluster` (loaded with the workload's data set), into `record`. */
export async function explainStatements(
  workload: string,
  statements: readonly WorkloadStatement[],
  arm: string,
  cluster: PgCluster,
  record: PlansRecord,
): Promise<void> {
  // Planner memory where the server has EXPLAIN (MEMORY) (17+); an older one refuses the option once and is
  // asked without it from then on (docs/plans.md says which servers record it: no note on every report).
  let memory = true;
  for (const s of statements) {
    if (s.explained === undefined) continue;
    let plan = await explainPlan(cluster, s.explained, { memory });
    if (memory && 'error' in plan && NO_EXPLAIN_MEMORY.test(plan.error)) {
      memory = false;
      plan = await explainPlan(cluster, s.explained);
    }
    record.plans.push({ workload, arm, statement: s.statement, ...plan });
  }
}

/** One arm: its own server with the workload's data set, the plans, then the counted run. */
async function captureArm(
  w: Workload,
  statements: readonly WorkloadStatement[],
  arm: ArmSpec,
  withStats: boolean,
  req: PlanPhaseRequest,
  deps: PlanPhaseDeps & { runAs: RunAsUser | undefined },
  record: PlansRecord,
): Promise<void> {
  const { driver } = countingClient(w, req, deps);
  const preload: Record<string, string> = withStats
    ? {
        shared_preload_libraries: withStatStatements(
          arm.settings.shared_preload_libraries ?? w.settings.shared_preload_libraries,
        ),
      }
    : {};
  const conf = { maxClients: 1, workloadSettings: w.settings, armSettings: { ...arm.settings, ...preload } };
  const setup = { tmpDir: req.tmpDir, dataChecksums: req.dataChecksums, runAs: deps.runAs };
  let made: PgCluster | undefined;
  try {
    const cluster = await loadedCountingCluster(arm, 'plans', conf, driver, setup, deps, (c) => (made = c));
    await driver.beforeRun(cluster);
    await explainStatements(w.name, statements, arm.label, cluster, record);
    if (!withStats) return;
    await createStatStatements(cluster);
    // 1 client, seeded: every arm runs the same keys. The counted run's driver is the client's (run-as user).
    const run = (transactions: number) =>
      driver.runTransactions(cluster, {
        clients: 1,
        transactions,
        seed: SEED,
        applicationName: PLAN_APPLICATION,
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
    await run(WARMUP_TRANSACTIONS);
    await resetStatStatements(cluster);
    await run(PLAN_TRANSACTIONS);
    const rows = await readStatStatements(cluster);
    for (const s of statements) {
      const key = statementKey(s.statement);
      const matching = rows.filter((r) => statementKey(r.query) === key);
      if (matching.length === 0) continue;
      const sum = (f: (r: (typeof rows)[number]) => number) => matching.reduce((t, r) => t + f(r), 0);
      record.stats.push({
        workload: w.name,
        arm: arm.label,
        statement: s.statement,
        calls: sum((r) => r.calls),
        totalTimeMs: sum((r) => r.totalTimeMs),
        sharedBlksHit: sum((r) => r.sharedBlksHit),
        sharedBlksRead: sum((r) => r.sharedBlksRead),
        transactions: PLAN_TRANSACTIONS,
      });
    }
  } finally {
    await made?.destroy();
  }
}
