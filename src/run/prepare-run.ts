/**
 * Prepare, before any server starts: everything that can be checked is checked (the request, machine
 * controls, bin dirs, client tools, workload files, the machine itself), the drivers are made, the rounds
 * planned, and the results document that the run will fill is written down with what is known already.
 */
import { workloadScriptHashes } from '../drivers/workload-scripts.js';
import os from 'node:os';
import type { Workload } from '../drivers/workload.js';
import { roundsOf } from '../drivers/common/workload-fields.js';
import { inspectBinDir } from '../postgres/cluster/cluster.js';
import { resolveRunAs, type RunAsUser } from '../postgres/cluster/run-as.js';
import type { Driver } from '../drivers/common/driver.js';
import { createDriver } from '../drivers/registry.js';
import { captureEnvironment } from '../machine/environment.js';
import { preflight, preflightFacts } from '../machine/preflight.js';
import { pinnedRunner, workloadCpuPlans, type CpuPlan } from '../machine/pinning.js';
import { checkControls, wantsControls, type ControlRequest } from '../machine/controls.js';
import { runnerAs } from '../machine/os/process.js';
import {
  RESULTS_SCHEMA_VERSION,
  type ArmInfo,
  type ClientInfo,
  type Environment,
  type RunResult,
} from '../core/results/result-types.js';
import { UserError } from '../core/util/errors.js';
import type { Logger } from '../core/util/logger.js';
import { PGPERF_VERSION } from '../core/version.js';
import { newRunId } from './run-id.js';
import { newSeed, planRounds, type PlannedRun } from './round-order.js';
import { groupDataSets, type DataSet } from './run-clusters.js';
import { validateRequest, type RunDeps, type RunRequest } from './run-request.js';

/** The run, prepared: plain values for the steps that start servers and measure. */
export interface PreparedRun {
  /** The request's workloads with its overrides (duration, rounds) applied. */
  workloads: Workload[];
  /** Those of them that run timed rounds (not in req.untimedWorkloads). */
  timedWorkloads: Workload[];
  workloadByName: Map<string, Workload>;
  /** Each workload's driver (its client pinned to the workload's client CPUs, when it has `cpus`). */
  drivers: Map<string, Driver>;
  cpuPlans: Map<string, CpuPlan>;
  /** The unprivileged user of the servers and clients when pgperf runs as root. */
  runAs: RunAsUser | undefined;
  /** The machine controls to hold over the measured runs, checked; none when none is asked for. */
  controlRequest: ControlRequest | undefined;
  seed: number;
  dataSets: DataSet[];
  /** Every (workload, client count) cell with its rounds (0 for an untimed workload's). */
  cells: { workload: string; clients: number; rounds: number }[];
  /** The interleaved order of the main rounds' runs. */
  rounds: PlannedRun[][];
  /** The results document, 'running', with no sample yet. */
  result: RunResult;
}

export async function prepareRun(req: RunRequest, deps: RunDeps): Promise<PreparedRun> {
  const { logger, runner } = deps;
  validateRequest(req);
  const workloads = req.workloads.map((w) => memoryRun(applyOverrides(w, req), req.memoryRounds));

  // Everything that can be checked is checked before any server starts.
  const controlRequest = req.controls && wantsControls(req.controls) ? req.controls : undefined;
  await checkRunControls(req.controls, logger);
  // As root, every program of the installs (postgres --version first) runs as the unprivileged run-as user.
  const runAs = await resolveRunAs(req.runAs, deps);
  if (runAs) logger.info(`running PostgreSQL and the clients as user "${runAs.name}" (pgperf runs as root)`);
  const versions = await Promise.all(
    req.arms.map((a) => inspectBinDir(a.binDir, `arm ${a.label}`, { runner, runAs, signal: deps.signal })),
  );
  // Pinning (workload `cpus`): the server under the plan's server CPUs, the client under its client CPUs,
  // and pgbench -j follows the client CPU count.
  const cpuPlans = await workloadCpuPlans(workloads, deps.searchPath ?? '');
  const drivers = createDrivers(workloads, cpuPlans, runAs, req, deps);
  // One client per tool drives every arm; each, and every file a workload names, is checked before any
  // server starts.
  const driverPerTool = new Map(workloads.map((w) => [w.tool, drivers.get(w.name)!]));
  const clientInfos = await Promise.all([...driverPerTool.values()].map((d) => d.client()));
  for (const driver of drivers.values()) await driver.checkFiles?.();

  const seed = req.seed ?? newSeed();
  // An untimed workload's cells stay in the plan (every analysis decides them) with no run.
  const untimed = new Set(req.untimedWorkloads?.names ?? []);
  const timedWorkloads = workloads.filter((w) => !untimed.has(w.name));
  const memoryOnly = new Set(req.memoryRounds?.names ?? []);
  // A memory-only workload runs its few rounds at its lowest client count: a backend's memory is its own
  // at any count, and the other cells would cost minutes for a regression the counts already decided.
  const roundsAt = (w: Workload, clients: number): number => {
    if (untimed.has(w.name)) return 0;
    if (!memoryOnly.has(w.name)) return roundsOf(w);
    return clients === Math.min(...w.clients) ? Math.min(roundsOf(w), req.memoryRounds!.rounds) : 0;
  };
  const cells = workloads.flatMap((w) =>
    w.clients.map((clients) => ({ workload: w.name, clients, rounds: roundsAt(w, clients) })),
  );
  const rounds = planRounds({ cells, arms: measuredArms(req).map((a) => a.label), order: req.order, seed });
  const arms: ArmInfo[] = req.arms.map((a, i) => ({
    label: a.label,
    binDir: a.binDir,
    serverVersion: versions[i]!.text,
    settingOverrides: a.settings,
    ...(a.build ? { build: a.build } : {}),
  }));
  const result = await newDocument(req, logger, {
    arms,
    clientInfos,
    workloads,
    cpuPlans,
    seed,
    cells,
    rounds: rounds.length,
  });
  return {
    workloads,
    timedWorkloads,
    workloadByName: new Map(workloads.map((w) => [w.name, w])),
    drivers,
    cpuPlans,
    runAs,
    controlRequest,
    seed,
    dataSets: groupDataSets(timedWorkloads),
    cells,
    rounds,
    result,
  };
}

/**
 * Checks the run's machine controls (values, files, writability, the governor among the driver's) without
 * changing anything; the adapters' pipeline calls it before a build, the run loop before any server starts.
 */
export async function checkRunControls(controls: ControlRequest | undefined, logger: Logger): Promise<void> {
  if (controls && wantsControls(controls)) await checkControls(controls, { ...controls, logger });
}

/** The arms the rounds measure: every arm but the heads that run base's code with base's settings. */
export function measuredArms(req: Pick<RunRequest, 'arms' | 'unmeasuredHeads'>): RunRequest['arms'] {
  return req.arms.filter((a) => !req.unmeasuredHeads?.includes(a.label));
}

function applyOverrides(w: Workload, req: RunRequest): Workload {
  const duration = req.durationS ?? w.duration;
  const rounds = req.adaptive?.plan.maxRounds ?? req.rounds ?? roundsOf(w);
  return { ...w, duration, warmup: Math.min(w.warmup, duration), rounds };
}

/** A driver per workload, by name. */
function createDrivers(
  workloads: Workload[],
  cpuPlans: ReadonlyMap<string, CpuPlan>,
  runAs: RunAsUser | undefined,
  req: RunRequest,
  deps: RunDeps,
): Map<string, Driver> {
  const clientBinDir = req.clientBinDir ?? req.arms[0]!.binDir;
  const cpuCount = deps.cpuCount ?? os.availableParallelism();
  // The clients run as the server's unprivileged user too: a workload's scripts (and their \shell
  // commands) get that user's rights, never root's.
  const clientRunner = runAs ? runnerAs(deps.runner, runAs) : deps.runner;
  return new Map(
    workloads.map((w) => {
      const plan = cpuPlans.get(w.name);
      const clientDeps = plan
        ? { cpuCount: plan.client.length, runner: pinnedRunner(clientRunner, plan.clientPrefix) }
        : { cpuCount, runner: clientRunner };
      return [
        w.name,
        createDriver(w, {
          clientBinDir,
          ...clientDeps,
          logger: deps.logger,
          searchPath: deps.searchPath ?? '',
          ...(runAs ? { clientUser: runAs } : {}),
          ...(deps.signal ? { signal: deps.signal } : {}),
        }),
      ];
    }),
  );
}

/** The results document as it stands before any server starts: status 'running', no sample yet. */
async function newDocument(
  req: RunRequest,
  logger: Logger,
  known: {
    arms: ArmInfo[];
    clientInfos: ClientInfo[];
    workloads: Workload[];
    cpuPlans: ReadonlyMap<string, CpuPlan>;
    seed: number;
    cells: { workload: string; clients: number }[];
    rounds: number;
  },
): Promise<RunResult> {
  const { cpuPlans, workloads } = known;
  const scripts = await workloadScriptHashes(workloads);
  const startedAt = new Date();
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    pgperfVersion: PGPERF_VERSION,
    runId: newRunId(startedAt),
    status: 'running',
    startedAt: startedAt.toISOString(),
    updatedAt: new Date().toISOString(),
    environment: await machineCheck(req, logger),
    ...(cpuPlans.size
      ? {
          pinning: Object.fromEntries(
            [...cpuPlans].map(([name, p]) => [
              name,
              { server: p.server, client: p.client, tool: p.tool, warnings: p.warnings },
            ]),
          ),
        }
      : {}),
    arms: known.arms,
    clients: known.clientInfos,
    workloads: Object.fromEntries(workloads.map((w) => [w.name, w])),
    ...(Object.keys(scripts).length > 0 ? { workloadScripts: scripts } : {}),
    analysis: req.analysis,
    plan: {
      seed: known.seed,
      order: req.order,
      rounds: known.rounds,
      cells: known.cells.map(({ workload, clients }) => ({ workload, clients })),
      executed: [],
      // A copy: the samples digest is written into it with every write (sealingSink).
      ...(req.shard ? { shard: { ...req.shard } } : {}),
    },
    ...(req.source ? { source: req.source } : {}),
    ...(req.calibration ? { calibration: true as const } : {}),
    ...(req.instructions ? { instructions: req.instructions } : {}),
    ...(req.plans ? { plans: req.plans } : {}),
    ...(req.compiledCode ? { compiledCode: req.compiledCode } : {}),
    samples: [],
    warnings: [],
  };
}

/**
 * The environment with the machine check: its report is recorded (environment.preflight, and flat
 * "preflight.*" facts, which the fingerprint does not read: load and steal change between runs), its
 * verdict logged; with strictPreflight a machine that is not fit is refused before any server starts.
 */
async function machineCheck(req: RunRequest, logger: Logger): Promise<Environment> {
  const environment = await captureEnvironment('');
  const report = await preflight({ windowS: req.preflightWindowS ?? 1 });
  environment.preflight = report;
  Object.assign(environment.facts, preflightFacts(report));
  const problems = report.facts.filter((f) => f.verdict !== 'ok');
  logger.info(
    `machine: ${report.verdict}${problems.length ? ` (${problems.map((f) => `${f.name}: ${f.value} [${f.verdict}]`).join('; ')})` : ''}; pgperf doctor says how to fix each`,
  );
  if (req.strictPreflight && report.verdict === 'not fit for benchmarking') {
    const bad = report.facts.filter((f) => f.verdict === 'bad');
    throw new UserError(
      `--strict: this machine is not fit for benchmarking: ${bad.map((f) => `${f.name} ${f.value}${f.fix ? ` (fix: ${f.fix})` : ''}`).join('; ')}`,
    );
  }
  return environment;
}

/**
 * A memory-only workload's runs (RunRequest.memoryRounds) are as long as the memory sampler needs (a
 * reading every 250 ms) and no longer: their throughput decides nothing, and a regression the counts
 * decided should be answered in seconds, not in the workload's minutes. The results record the lengths run.
 */
const MEMORY_RUN_S = 5;
const MEMORY_WARMUP_S = 2;

function memoryRun(w: Workload, memory: RunRequest['memoryRounds']): Workload {
  if (!memory?.names.includes(w.name)) return w;
  return { ...w, duration: Math.min(w.duration, MEMORY_RUN_S), warmup: Math.min(w.warmup, MEMORY_WARMUP_S) };
}
