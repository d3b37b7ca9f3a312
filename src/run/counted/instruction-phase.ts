/**
 * The instruction phase of the compare pipeline (docs/instructions.md): before the timed rounds, for every
 * workload with `instructions`, each arm gets its own short-lived server under cachegrind (loaded first
 * without it), and the workload's driver runs fixed transaction counts at 1 client (counted runs,
 * src/run/counted/counted-runs.ts), base and head interleaved: a warm-up, a short and a long run per repetition.
 * The instructions of the client's backends (read from their cachegrind files, told apart by the
 * connection log) give per transaction (I_long − I_short) / (N_long − N_short), which cancels connection,
 * start-up and exit. The same files give the differential profile, written to the run directory.
 */
import { chown, copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { PgCluster } from '../../postgres/cluster/cluster.js';
import { resolveRunAs, type RunAsUser } from '../../postgres/cluster/run-as.js';
import {
  CONNECTION_LOG_SETTINGS,
  clientBackendPids,
  waitForExit,
} from '../../postgres/instructions/backend-log.js';
import { sumProfiles, type CachegrindProfile } from '../../postgres/instructions/cachegrind-file.js';
import {
  cachegrindFileOf,
  cachegrindWrapper,
  sumIr,
  waitForProfile,
} from '../../postgres/instructions/cachegrind-run.js';
import {
  chooseCounter,
  probeCounters,
  type Counter,
  type CounterChoice,
  type CounterProbe,
} from '../../postgres/instructions/counter.js';
import { QUIET_SETTINGS, fixedLayoutPrefix, prewarm } from '../../postgres/instructions/counting-server.js';
import { countDuring } from '../../postgres/instructions/perf-stat.js';
import {
  diffProfiles,
  perTransactionCosts,
  profileText,
  type ArmRuns,
} from '../../postgres/instructions/profile-diff.js';
import { armProfileName, armProfileText } from '../../postgres/instructions/arm-profile.js';
import type { Workload } from '../../drivers/workload.js';
import {
  emptyInstructionsRecord,
  perTransaction,
  type ChangedCodeRun,
  type InstructionProfile,
  type InstructionSample,
  type InstructionSettings,
  type InstructionsRecord,
} from '../../core/results/instructions.js';
import type { ArmSpec } from '../run-loop.js';
import type { PlansRecord } from '../../core/results/plans.js';
import type { WorkloadStatement } from '../../drivers/common/driver.js';
import { listsStatements, statementsOf } from '../../drivers/registry.js';
import { explainStatements } from './plan-phase.js';
import {
  COUNTED_APPLICATION,
  COUNTED_CLIENTS,
  countedRunLimitS,
  headCountedRun,
  runCounted,
} from './counted-run-limit.js';
import { changedCodeNote } from '../../core/compare/analysis/unexecuted-code.js';
import {
  countingClient,
  countsTransactions,
  loadedCountingCluster,
  type CountingDriver,
} from './counted-runs.js';

export type { CounterChoice } from '../../postgres/instructions/counter.js';

/** How many names of executed changed functions results.json keeps (the count says how many in all). */
const KEPT_EXECUTED = 50;
/** How many movers a profile keeps in results.json (the report shows five). */
const KEPT_MOVERS = 10;

export interface InstructionPhaseRequest {
  arms: readonly ArmSpec[];
  instructionCounter?: CounterChoice;
  workloads: readonly Workload[];
  runDir: string;
  clientBinDir?: string;
  runAs?: string;
  tmpDir?: string;
  dataChecksums: boolean;
  /**
   * Where the plans of the counted pgbench workloads (those without their own `plans`) are taken on the
   * counting servers, once loaded and before the counter starts: the plans by default, at no extra server.
   */
  plansAlongside?: PlansRecord;
  /**
   * Per head arm, every function of the server whose code differs from base's (compiled-code.ts, when it
   * could list them) and those of them changed only in immediates: the profiles say which of them each
   * workload executes (InstructionsRecord.changedCode).
   */
  changedFunctions?: Record<string, ChangedFunctions>;
}

/** One head's changed functions (CompiledCodeComparison.serverFunctions: `all` and `immediatesOnly`). */
export interface ChangedFunctions {
  all: readonly string[];
  immediatesOnly: readonly string[];
}

export interface InstructionPhaseDeps {
  runner: ProcessRunner;
  logger: Logger;
  signal?: AbortSignal;
  /** What probeCounters found, when the caller already asked (probed here otherwise). */
  probe?: CounterProbe;
}

/** The workloads that ask for instruction counts. */
function instructionWorkloads(workloads: readonly Workload[]): Workload[] {
  return workloads.filter((w) => w.instructions !== undefined);
}

/** A UserError, before anything is built or run, for a workload the instruction mode cannot measure. */
export function checkInstructionWorkloads(workloads: readonly Workload[]): void {
  for (const w of instructionWorkloads(workloads)) {
    if (!countsTransactions(w)) {
      throw new UserError(
        `workload ${w.name}: instructions: counts need fixed transaction counts, which only pgbench runs (tool ${w.tool}); drop instructions from this workload`,
      );
    }
    if (w.tool === 'pgbench' && w.pipeline !== undefined) {
      throw new UserError(
        `workload ${w.name}: instructions: not measured with pipeline (${w.pipeline}); drop one of instructions and pipeline`,
      );
    }
  }
}

/**
 * A UserError before anything is built or run when the chosen counter cannot count here (valgrind missing,
 * or perf asked for on a machine without the CPU's counter); else what the probe found, for the phase.
 */
export async function checkInstructionCounter(
  req: Pick<InstructionPhaseRequest, 'workloads' | 'instructionCounter'>,
  deps: Pick<InstructionPhaseDeps, 'runner' | 'signal'>,
): Promise<CounterProbe | undefined> {
  if (instructionWorkloads(req.workloads).length === 0) return undefined;
  const probe = await probeCounters(deps.runner, deps.signal);
  chooseCounter(req.instructionCounter ?? { counter: 'auto' }, probe, 'instructions');
  return probe;
}

/** Runs the phase; undefined when no workload asks for it. */
export async function runInstructionPhase(
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps,
): Promise<InstructionsRecord | undefined> {
  const workloads = instructionWorkloads(req.workloads);
  if (workloads.length === 0) return undefined;
  return countInstructions(
    workloads.map((w) => ({ workload: w, settings: w.instructions! })),
    req,
    deps,
    { what: 'instructions', profileDir: 'instructions' },
  );
}

/** How a counting is named in the log, where its profiles go and which it writes. */
export interface CountOptions {
  what: string;
  profileDir: string;
  /**
   * Also each arm's own per-transaction profile (arm-profile.ts), for comparing counts made apart (an
   * attribution counts one commit at a time).
   */
  armProfiles?: boolean;
}

/**
 * Counts the instructions of `arms` (the first is base) in each workload with its settings, on servers of
 * their own under cachegrind, and writes each head's differential profile under <runDir>/<profileDir>/.
 * A workload that cannot be measured is recorded in `failures` (the rest go on); a missing valgrind, a bad
 * run-as user or an abort throw. `what` names the phase in the log.
 */
export async function countInstructions(
  items: ReadonlyArray<{ workload: Workload; settings: InstructionSettings }>,
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps,
  options: CountOptions,
): Promise<InstructionsRecord> {
  const { logger } = deps;
  const started = Date.now();
  const probe = deps.probe ?? (await probeCounters(deps.runner, deps.signal));
  const counter = chooseCounter(req.instructionCounter ?? { counter: 'auto' }, probe, options.what);
  logger.info(
    counter.kind === 'perf'
      ? `${options.what}: counting with perf stat -e ${counter.event} (the CPU's counter)`
      : `${options.what}: counting with cachegrind (${probe.valgrind}); hardware counter: ${probe.hardware ? 'available, not chosen' : `unavailable (${probe.hardwareWhy})`}`,
  );
  const runAs = await resolveRunAs(req.runAs, deps);
  const record: InstructionsRecord = { ...emptyInstructionsRecord(), counter: counter.kind };
  const fixedLayout = await fixedLayoutPrefix(deps.runner, deps.signal);
  if (fixedLayout.length === 0) {
    record.notes.push(
      'address-space randomisation left on: setarch -R does not run here (util-linux); counts may vary a little more',
    );
  }
  for (const { workload: w, settings } of items) {
    deps.signal?.throwIfAborted();
    record.settings[w.name] = settings;
    if (!w.clients.includes(COUNTED_CLIENTS)) {
      record.notes.push(
        `${w.name}: instructions counted at ${COUNTED_CLIENTS} client (its timed cells run ${w.clients.join(', ')})`,
      );
    }
    const measureDeps = {
      ...deps,
      runAs,
      counter,
      fixedLayout,
      baseSeconds: new Map(),
    };
    await measureWorkload(w, settings, req, measureDeps, record, options);
  }
  record.wallS = (Date.now() - started) / 1000;
  logger.info(
    `${options.what}: ${items.length} workload(s) x ${req.arms.length} arms measured in ${record.wallS.toFixed(1)} s`,
  );
  return record;
}

/** What measuring a workload takes, beyond the request: the counter, the layout prefix, the run-as user. */
type MeasureDeps = InstructionPhaseDeps & {
  runAs: RunAsUser | undefined;
  counter: Counter;
  fixedLayout: readonly string[];
  /** The workload's base server, and how long its counted runs took, by transaction count (the longest). */
  baseServer?: ArmServer;
  baseSeconds: Map<number, number>;
};

export interface ArmServer {
  arm: ArmSpec;
  cluster: PgCluster;
  /** Where the counter writes: cachegrind's files of the backends, or perf stat's output per counted run. */
  countDir: string;
  /** Per repetition: the client backends' profiles of the short and the long run. */
  runs: Array<{ short: CachegrindProfile[]; long: CachegrindProfile[]; files: string[] }>;
}

async function measureWorkload(
  w: Workload,
  settings: InstructionSettings,
  req: InstructionPhaseRequest,
  deps: MeasureDeps,
  record: InstructionsRecord,
  options: CountOptions,
): Promise<void> {
  const { logger } = deps;
  const { driver } = countingClient(w, req, deps);
  // Every server, from the moment it exists: removed however the workload ends.
  const clusters: PgCluster[] = [];
  const servers: ArmServer[] = [];
  const plans = await plansAlongside(w, req.plansAlongside, logger);
  try {
    await logger.group(`${options.what}: ${w.name}`, async () => {
      for (const arm of req.arms) {
        deps.signal?.throwIfAborted();
        servers.push(await startServer(w, arm, driver, req, deps, (c) => clusters.push(c), plans));
      }
      deps.baseServer = servers[0];
      for (let rep = 1; rep <= settings.repetitions; rep++) {
        // Interleaved, the order turned every repetition: base, head, then head, base.
        const order = rep % 2 === 1 ? [...servers] : [...servers].reverse();
        for (const server of order) {
          deps.signal?.throwIfAborted();
          const sample = await measureHeadOrThrow(w, settings, rep, server, servers, driver, deps, record);
          if (!sample) continue;
          record.samples.push(sample);
          logger.info(
            `${options.what} ${w.name} ${server.arm.label} #${rep}/${settings.repetitions}: ${Math.round(sample.perTx)} instr/tx`,
          );
        }
      }
      if (deps.counter.kind === 'cachegrind') {
        record.profiles.push(...(await writeProfiles(w, settings, servers, req.runDir, options)));
        await recordChangedCode(w.name, servers, req.changedFunctions, record, deps);
      } else {
        record.notes.push(
          `${w.name}: no per-function profile with the CPU's counter (--instruction-counter cachegrind, or --explain, gives one)`,
        );
      }
    });
  } catch (e) {
    if (e instanceof UserError || deps.signal?.aborted) throw e;
    const reason = e instanceof Error ? e.message : String(e);
    record.failures.push({ workload: w.name, reason });
    logger.warn(`${options.what} ${w.name}: not measured: ${reason}`);
  } finally {
    for (const c of clusters) await c.destroy();
  }
}

/**
 * A loaded server of the arm's own (src/run/counted/counted-runs.ts), with the data loaded without cachegrind (it
 * would take minutes), then restarted under the counter.
 */
async function startServer(
  w: Workload,
  arm: ArmSpec,
  driver: CountingDriver,
  req: InstructionPhaseRequest,
  deps: MeasureDeps,
  keep: (cluster: PgCluster) => void,
  plans: PlansAlongside | undefined,
): Promise<ArmServer> {
  const conf = {
    maxClients: Math.max(...w.clients),
    workloadSettings: w.settings,
    armSettings: { ...QUIET_SETTINGS, ...arm.settings, ...CONNECTION_LOG_SETTINGS },
  };
  const setup = { tmpDir: req.tmpDir, dataChecksums: req.dataChecksums, runAs: deps.runAs };
  const cluster = await loadedCountingCluster(arm, 'instructions', conf, driver, setup, deps, keep);
  if (plans) await takePlans(w.name, arm.label, cluster, plans, deps.logger);
  await cluster.stop();
  const countDir = path.join(cluster.dir, deps.counter.kind);
  await mkdir(countDir, { mode: 0o755 });
  if (deps.runAs) await chown(countDir, deps.runAs.uid, deps.runAs.gid);
  // The counting server and its backends start with address-space randomisation off (inherited across
  // fork), so where code and data land, and the instructions that depend on it, are the same every start.
  const counted = deps.counter.kind === 'cachegrind' ? cachegrindWrapper(countDir) : [];
  const wrapper = [...deps.fixedLayout, ...counted];
  await cluster.start(wrapper.length > 0 ? { wrapper } : {});
  // Once per server, not per repetition: VACUUM and CHECKPOINT under cachegrind take seconds each.
  await driver.beforeRun(cluster);
  if (!(await prewarm(cluster)))
    deps.logger.warn(
      `arm ${arm.label}: pg_prewarm is not installed; the warm-up run alone warms shared buffers`,
    );
  return { arm, cluster, countDir, runs: [] };
}

/** The statements of a workload whose plans are taken on the counting servers, and where they go. */
interface PlansAlongside {
  statements: WorkloadStatement[];
  record: PlansRecord;
}

/**
 * The statements to explain on the counting servers: pgbench workloads without plans of their own (those
 * have the plan phase, with its pg_stat_statements counters); a script that cannot be read is recorded.
 */
async function plansAlongside(
  w: Workload,
  record: PlansRecord | undefined,
  logger: Logger,
): Promise<PlansAlongside | undefined> {
  if (!record || !listsStatements(w) || w.plans === true) return undefined;
  try {
    const statements = (await statementsOf(w)) ?? [];
    record.statements.push(...statements.map((s) => ({ workload: w.name, ...s })));
    return { statements, record };
  } catch (e) {
    record.failures.push({
      workload: w.name,
      reason: `its statements could not be read: ${errorMessage(e)}`,
    });
    logger.warn(`plans ${w.name}: ${errorMessage(e)}`);
    return undefined;
  }
}

/** The plans on a loaded counting server; a failure is recorded, never fatal to the counting. */
async function takePlans(
  workload: string,
  arm: string,
  cluster: PgCluster,
  plans: PlansAlongside,
  logger: Logger,
): Promise<void> {
  const started = Date.now();
  try {
    await explainStatements(workload, plans.statements, arm, cluster, plans.record);
  } catch (e) {
    plans.record.failures.push({ workload, arm, reason: errorMessage(e) });
    logger.warn(`plans ${workload} ${arm}: not taken: ${errorMessage(e)}`);
  }
  plans.record.wallS += (Date.now() - started) / 1000;
}

/**
 * One repetition of one arm. A head arm whose counting fails (too slow to count, a server that died) is
 * dropped from the workload's counting, its samples removed and the failure recorded with the arm: the
 * other heads keep their counts against base. Base's failure (and a UserError or an abort) throws: no head
 * can be counted against it.
 */
async function measureHeadOrThrow(
  w: Workload,
  settings: InstructionSettings,
  rep: number,
  server: ArmServer,
  servers: ArmServer[],
  driver: CountingDriver,
  deps: MeasureDeps,
  record: InstructionsRecord,
): Promise<InstructionSample | undefined> {
  try {
    return await measureRepetition(w, settings, rep, server, driver, deps);
  } catch (e) {
    if (e instanceof UserError || deps.signal?.aborted || server === servers[0]) throw e;
    const arm = server.arm.label;
    const reason = errorMessage(e);
    record.failures.push({ workload: w.name, arm, reason });
    record.samples = record.samples.filter((s) => !(s.workload === w.name && s.arm === arm));
    servers.splice(servers.indexOf(server), 1);
    // Stopped now: a backend still working under the counter would slow the other arms' counts.
    await server.cluster.stop();
    deps.logger.warn(`instructions ${w.name} ${arm}: not counted: ${reason}`);
    return undefined;
  }
}

/**
 * A counted run with its limit (counted-run-limit.ts): base's runs are timed, a head's run may take a
 * multiple of base's run of as many transactions. Base runs first in the first repetition. `fromHere`
 * moves the start of the run's log (for a head's retry, whose stopped attempt's backend is not counted).
 */
async function timedCountedRun(
  driver: Pick<CountingDriver, 'runTransactions'>,
  server: ArmServer,
  transactions: number,
  seed: number,
  deps: MeasureDeps,
  fromHere: () => Promise<void>,
): Promise<void> {
  const baseServer = deps.baseServer;
  const timeBase = async (): Promise<number> => {
    const started = Date.now();
    await runCounted(driver, baseServer!, transactions, seed, deps.signal);
    const tookS = (Date.now() - started) / 1000;
    deps.baseSeconds.set(transactions, Math.max(tookS, deps.baseSeconds.get(transactions) ?? 0));
    return tookS;
  };
  if (server === baseServer || baseServer === undefined) {
    await (baseServer ? timeBase() : runCounted(driver, server, transactions, seed, deps.signal));
    return;
  }
  if (deps.counter.kind === 'perf') {
    // No retry: perf counts every backend of the server at its exit, the stopped attempt's too.
    const limitS = countedRunLimitS(deps.baseSeconds.get(transactions));
    await runCounted(driver, server, transactions, seed, deps.signal, limitS);
    return;
  }
  await headCountedRun(deps.baseSeconds.get(transactions), {
    runHead: (limitS) => runCounted(driver, server, transactions, seed, deps.signal, limitS),
    timeBaseNow: timeBase,
    beforeRetry: fromHere,
    note: (message) => deps.logger.info(`instructions ${server.arm.label}: ${message}`),
  });
}

async function measureRepetition(
  w: Workload,
  settings: InstructionSettings,
  rep: number,
  server: ArmServer,
  driver: CountingDriver,
  deps: MeasureDeps,
): Promise<InstructionSample> {
  // The same keys for every arm in a repetition; short and long differ only in their length.
  const seed = 1000 + rep;
  const counted = (transactions: number, fromHere: () => Promise<void>) =>
    timedCountedRun(driver, server, transactions, seed, deps, fromHere);
  if (rep === 1 && settings.warmup > 0) await counted(settings.warmup, async () => {});
  const findBackends = (transactions: number) =>
    runAndFindBackends(server, (fromHere) => counted(transactions, fromHere), deps.signal);
  let shortInstructions: number;
  let longInstructions: number;
  if (deps.counter.kind === 'perf') {
    const event = deps.counter.event;
    const count = (transactions: number, length: string) =>
      perfCountedRun(server, transactions, findBackends, { ...deps, event }, `${rep}.${length}`);
    shortInstructions = await count(settings.short, 'short');
    longInstructions = await count(settings.long, 'long');
  } else {
    const short = await cachegrindCountedRun(server, settings.short, findBackends, deps.signal);
    const long = await cachegrindCountedRun(server, settings.long, findBackends, deps.signal);
    server.runs.push({ short: short.profiles, long: long.profiles, files: long.files });
    shortInstructions = sumIr(short.profiles);
    longInstructions = sumIr(long.profiles);
  }
  return {
    workload: w.name,
    clients: COUNTED_CLIENTS,
    arm: server.arm.label,
    repetition: rep,
    counter: deps.counter.kind,
    shortInstructions,
    longInstructions,
    perTx: perTransaction(shortInstructions, longInstructions, settings),
  };
}

/**
 * One counted run of `transactions` with perf attached to the postmaster (as pgperf, which started it): the
 * count of its event. perf stays attached until the run's backends have exited: a child's count joins the
 * total only at its exit.
 */
async function perfCountedRun(
  server: ArmServer,
  transactions: number,
  findBackends: (transactions: number) => Promise<number[]>,
  deps: MeasureDeps & { event: string },
  name: string,
): Promise<number> {
  if (transactions === 0) return 0;
  const pid = await server.cluster.postmasterPid();
  if (pid === undefined) throw new Error(`arm ${server.arm.label}: the server is not running`);
  const out = path.join(server.countDir, `perf-stat.${name}.csv`);
  return countDuring(pid, deps.event, out, deps.runner, async () => {
    const pids = await findBackends(transactions);
    await waitForExit(pids, deps.signal);
  });
}

/** One counted run of `transactions`; the profiles of the backends it opened (its setup and its client). */
async function cachegrindCountedRun(
  server: ArmServer,
  transactions: number,
  findBackends: (transactions: number) => Promise<number[]>,
  signal: AbortSignal | undefined,
): Promise<{ profiles: CachegrindProfile[]; files: string[] }> {
  if (transactions === 0) return { profiles: [], files: [] };
  const pids = await findBackends(transactions);
  const files = pids.map((pid) => cachegrindFileOf(server.countDir, pid));
  const profiles = await Promise.all(files.map((f) => waitForProfile(f, signal)));
  return { profiles, files };
}

/**
 * Runs `run`; the pids of the backends it opened, from the connection log. `run` may start over (a head's
 * retry): `fromHere` waits for the backends opened so far to exit and starts the log after them.
 */
async function runAndFindBackends(
  server: ArmServer,
  run: (fromHere: () => Promise<void>) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<number[]> {
  const { cluster } = server;
  const logText = () => readFile(cluster.logFile, 'utf8').catch(() => '');
  let logBefore = (await logText()).length;
  const fromHere = async () => {
    const log = await logText();
    await waitForExit(clientBackendPids(log.slice(logBefore), COUNTED_APPLICATION), signal);
    logBefore = log.length;
  };
  await run(fromHere);
  const log = (await readFile(cluster.logFile, 'utf8')).slice(logBefore);
  const pids = clientBackendPids(log, COUNTED_APPLICATION);
  if (pids.length === 0) {
    throw new Error(
      `arm ${server.arm.label}: no pgbench connection in the server log (${cluster.logFile}); log_connections did not take effect`,
    );
  }
  return pids;
}

/**
 * Which of each head's changed functions the workload executed, recorded per head (with a note): the
 * servers are stopped, so every process they ran under cachegrind (backends of the counted runs, the
 * warm-up, the VACUUM and CHECKPOINT before them, the background processes, the postmaster) has written
 * its file, and a function with self instructions in any file of base's or head's server ran. Base's
 * profile counts too: a function of base's code that a head changed runs there whenever it runs in head.
 * A file that cannot be read leaves the workload without the fact (its timed rounds then decide).
 */
async function recordChangedCode(
  workload: string,
  servers: readonly ArmServer[],
  changed: InstructionPhaseRequest['changedFunctions'],
  record: InstructionsRecord,
  deps: MeasureDeps,
): Promise<void> {
  const [base, ...heads] = servers;
  const listed = heads.filter((h) => changed?.[h.arm.label] !== undefined);
  if (!base || listed.length === 0) return;
  let ranIn: Map<ArmServer, Set<string>>;
  try {
    ranIn = new Map();
    for (const s of [base, ...listed]) ranIn.set(s, await executedFunctions(s, deps.signal));
  } catch (e) {
    if (deps.signal?.aborted) throw e;
    record.notes.push(`${workload}: which changed functions ran is not known: ${errorMessage(e)}`);
    return;
  }
  const baseRan = ranIn.get(base)!;
  for (const head of listed) {
    const functions = changed![head.arm.label]!;
    const headRan = ranIn.get(head)!;
    const ran = functions.all.filter((f) => baseRan.has(f) || headRan.has(f));
    const run: ChangedCodeRun = {
      workload,
      head: head.arm.label,
      changedCount: functions.all.length,
      executed: ran.slice(0, KEPT_EXECUTED),
      executedCount: ran.length,
    };
    (record.changedCode ??= []).push(run);
    record.notes.push(changedCodeNote(run, functions.immediatesOnly));
  }
}

/** The functions with self instructions in any cachegrind file of the server, once it is stopped. */
async function executedFunctions(server: ArmServer, signal: AbortSignal | undefined): Promise<Set<string>> {
  await server.cluster.stop();
  const files = (await readdir(server.countDir)).filter((f) => /^cg\.\d+$/.test(f));
  if (files.length === 0) throw new Error(`no cachegrind file in ${server.countDir}`);
  const ran = new Set<string>();
  for (const file of files) {
    const profile = await waitForProfile(path.join(server.countDir, file), signal);
    for (const f of profile.functions.values()) if (f.ir > 0) ran.add(f.fn);
  }
  return ran;
}

/**
 * Per head arm, the differential profile against arms[0] from each arm's median repetition: the full table
 * as a file under <runDir>/<profileDir>/ (with the long runs' cachegrind files, for cg_annotate), the
 * largest movers in results.json; with `armProfiles`, each arm's own per-transaction profile too.
 */
async function writeProfiles(
  w: Workload,
  settings: InstructionSettings,
  servers: readonly ArmServer[],
  runDir: string,
  options: CountOptions,
): Promise<InstructionProfile[]> {
  const { profileDir } = options;
  const dir = path.join(runDir, profileDir);
  await mkdir(dir, { recursive: true });
  const transactions = { short: settings.short, long: settings.long };
  const median = (s: ArmServer) => {
    const perTx = s.runs.map((r) => sumIr(r.long) - sumIr(r.short));
    const sorted = [...perTx].sort((a, b) => a - b);
    return s.runs[perTx.indexOf(sorted[Math.floor((sorted.length - 1) / 2)]!)]!;
  };
  const armRuns = (s: ArmServer): ArmRuns => {
    const run = median(s);
    return { short: sumProfiles(run.short), long: sumProfiles(run.long), transactions };
  };
  for (const s of servers) {
    const files = median(s).files;
    for (const [i, f] of files.entries()) {
      await copyFile(f, path.join(dir, `${w.name}.${s.arm.label}.long.${i + 1}.cachegrind`));
    }
    if (options.armProfiles) {
      await writeFile(
        path.join(dir, armProfileName(w.name, s.arm.label)),
        armProfileText(
          perTransactionCosts(armRuns(s)),
          `${w.name} at ${COUNTED_CLIENTS} client: ${s.arm.label}`,
        ),
      );
    }
  }
  const [base, ...heads] = servers;
  const profiles: InstructionProfile[] = [];
  for (const head of heads) {
    const rows = diffProfiles(armRuns(base!), armRuns(head));
    const file = path.join(profileDir, `${w.name}.${head.arm.label}-vs-${base!.arm.label}.tsv`);
    await writeFile(
      path.join(runDir, file),
      profileText(rows, `${w.name} at ${COUNTED_CLIENTS} client: ${head.arm.label} vs ${base!.arm.label}`),
    );
    profiles.push({
      workload: w.name,
      clients: COUNTED_CLIENTS,
      base: base!.arm.label,
      head: head.arm.label,
      file,
      movers: rows.slice(0, KEPT_MOVERS),
    });
  }
  return profiles;
}
