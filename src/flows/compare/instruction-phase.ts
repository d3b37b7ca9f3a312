/**
 * The instruction phase of the compare pipeline (docs/instructions.md): before the timed rounds, for every
 * workload with `instructions`, each arm gets its own short-lived server under cachegrind (loaded first
 * without it), and pgbench runs fixed transaction counts at 1 client, base and head interleaved: a
 * warm-up, a short and a long run per repetition. The instructions of the client's backends (read from their
 * cachegrind files, told apart by the connection log) give per transaction
 * (I_long − I_short) / (N_long − N_short), which cancels connection, start-up and exit. The same files give
 * the differential profile, written to the run directory.
 */
import { chown, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { describeExit, runnerAs, tail, type ProcessRunner } from '../../machine/os/process.js';
import { PgCluster, type ClusterSpec } from '../../postgres/cluster/cluster.js';
import { hasExited } from '../../machine/os/process-state.js';
import { resolveRunAs, type RunAsUser } from '../../postgres/cluster/run-as.js';
import { CONNECTION_LOG_SETTINGS, clientBackendPids } from '../../postgres/instructions/backend-log.js';
import {
  parseCachegrind,
  sumProfiles,
  type CachegrindProfile,
} from '../../postgres/instructions/cachegrind-file.js';
import { probeCounters, type CounterProbe } from '../../postgres/instructions/counter.js';
import { countDuring, HARDWARE_EVENT } from '../../postgres/instructions/perf-stat.js';
import { diffProfiles, profileText, type ArmRuns } from '../../postgres/instructions/profile-diff.js';
import { createDriver } from '../../drivers/registry.js';
import type { Workload } from '../../drivers/workload.js';
import type { Driver } from '../../drivers/common/driver.js';
import { measureArgs } from '../../drivers/pgbench/command.js';
import type { PgbenchWorkload } from '../../drivers/pgbench/workload.js';
import {
  emptyInstructionsRecord,
  perTransaction,
  type InstructionProfile,
  type InstructionSample,
  type InstructionSettings,
  type InstructionsRecord,
} from '../../core/results/instructions.js';
import type { ArmSpec } from '../../run/run-loop.js';

/** The client count of every instruction cell: one backend, so the count is the backend's own work. */
const INSTRUCTION_CLIENTS = 1;
/** The application name the counted runs connect with: their backends are found by it in the server log. */
const APP_NAME = 'pgbench';
/** How many movers a profile keeps in results.json (the report shows five). */
const KEPT_MOVERS = 10;
/** Seconds a backend may take to exit (and write its cachegrind file) after pgbench ends. */
const FILE_WAIT_S = 60;

/**
 * Which counter counts: 'auto' (the default) the CPU's own where perf can count instructions:u (a PMU), else
 * cachegrind; or one of them forced. `perfEvent` replaces instructions:u (tests on a machine without a PMU
 * drive the perf path with a software event such as task-clock).
 */
export interface CounterChoice {
  counter: 'auto' | 'cachegrind' | 'perf';
  perfEvent?: string;
}

/** The counter chosen for a phase. */
type Counter = { kind: 'cachegrind' } | { kind: 'perf'; event: string };

export interface InstructionPhaseRequest {
  arms: readonly ArmSpec[];
  instructionCounter?: CounterChoice;
  workloads: readonly Workload[];
  runDir: string;
  clientBinDir?: string;
  runAs?: string;
  tmpDir?: string;
  dataChecksums: boolean;
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
    if (w.tool !== 'pgbench') {
      throw new UserError(
        `workload ${w.name}: instructions: counts need fixed transaction counts, which only pgbench runs (tool ${w.tool}); drop instructions from this workload`,
      );
    }
    if (w.pipeline !== undefined) {
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
  deps: Pick<InstructionPhaseDeps, 'runner'>,
): Promise<CounterProbe | undefined> {
  if (instructionWorkloads(req.workloads).length === 0) return undefined;
  const probe = await probeCounters(deps.runner);
  chooseCounter(req.instructionCounter ?? { counter: 'auto' }, probe, 'instructions');
  return probe;
}

/** Runs the phase; undefined when no workload asks for it. */
export async function runInstructionPhase(
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps,
): Promise<InstructionsRecord | undefined> {
  const workloads = instructionWorkloads(req.workloads) as PgbenchWorkload[];
  if (workloads.length === 0) return undefined;
  return countInstructions(
    workloads.map((w) => ({ workload: w, settings: w.instructions! })),
    req,
    deps,
    { what: 'instructions', profileDir: 'instructions' },
  );
}

/**
 * Counts the instructions of `arms` (the first is base) in each workload with its settings, on servers of
 * their own under cachegrind, and writes each head's differential profile under <runDir>/<profileDir>/.
 * A workload that cannot be measured is recorded in `failures` (the rest go on); a missing valgrind, a bad
 * run-as user or an abort throw. `what` names the phase in the log.
 */
export async function countInstructions(
  items: ReadonlyArray<{ workload: PgbenchWorkload; settings: InstructionSettings }>,
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps,
  options: { what: string; profileDir: string },
): Promise<InstructionsRecord> {
  const { logger } = deps;
  const started = Date.now();
  const probe = deps.probe ?? (await probeCounters(deps.runner));
  const counter = chooseCounter(req.instructionCounter ?? { counter: 'auto' }, probe, options.what);
  logger.info(
    counter.kind === 'perf'
      ? `${options.what}: counting with perf stat -e ${counter.event} (the CPU's counter)`
      : `${options.what}: counting with cachegrind (${probe.valgrind}); hardware counter: ${probe.hardware ? 'available, not chosen' : `unavailable (${probe.hardwareWhy})`}`,
  );
  const runAs = await resolveRunAs(req.runAs, deps);
  const record: InstructionsRecord = { ...emptyInstructionsRecord(), counter: counter.kind };
  const fixedLayout = await fixedLayoutPrefix(deps.runner);
  if (fixedLayout.length === 0) {
    record.notes.push(
      'address-space randomisation left on: setarch -R does not run here (util-linux); counts may vary a little more',
    );
  }
  for (const { workload: w, settings } of items) {
    deps.signal?.throwIfAborted();
    record.settings[w.name] = settings;
    if (!w.clients.includes(INSTRUCTION_CLIENTS)) {
      record.notes.push(
        `${w.name}: instructions counted at ${INSTRUCTION_CLIENTS} client (its timed cells run ${w.clients.join(', ')})`,
      );
    }
    await measureWorkload(w, settings, req, { ...deps, runAs, counter, fixedLayout }, record, options);
  }
  record.wallS = (Date.now() - started) / 1000;
  logger.info(
    `${options.what}: ${items.length} workload(s) x ${req.arms.length} arms measured in ${record.wallS.toFixed(1)} s`,
  );
  return record;
}

/** The counter a choice gives on this machine; a UserError when it cannot count here. */
function chooseCounter(choice: CounterChoice, probe: CounterProbe, what: string): Counter {
  const perf = { kind: 'perf' as const, event: choice.perfEvent ?? HARDWARE_EVENT };
  // A replaced event is the caller's to vouch for: perf says so at the first count if it cannot count it.
  const perfCounts = probe.hardware || choice.perfEvent !== undefined;
  if (choice.counter === 'perf') {
    if (!perfCounts) {
      throw new UserError(
        `${what}: --instruction-counter perf: the CPU's counter is unavailable here (${probe.hardwareWhy}); use auto or cachegrind`,
      );
    }
    return perf;
  }
  if (choice.counter === 'auto' && perfCounts) return perf;
  if (!probe.valgrind) {
    throw new UserError(
      `${what}: valgrind is not installed (apt-get install valgrind; scripts/setup.sh installs it)${choice.counter === 'auto' ? `, and the CPU's counter is unavailable (${probe.hardwareWhy})` : ''}`,
    );
  }
  return { kind: 'cachegrind' };
}

/**
 * The client of a phase's servers (this one's and the plan phase's): the pgbench of `clientBinDir` (else
 * base's), run as the run-as user when there is one, and the workload's driver on it.
 */
export function phaseClient(
  w: PgbenchWorkload,
  req: Pick<InstructionPhaseRequest, 'arms' | 'clientBinDir'>,
  deps: Pick<InstructionPhaseDeps, 'runner' | 'logger'> & { runAs: RunAsUser | undefined },
): { clientRunner: ProcessRunner; clientBinDir: string; driver: Driver } {
  const clientRunner = deps.runAs ? runnerAs(deps.runner, deps.runAs) : deps.runner;
  const clientBinDir = req.clientBinDir ?? req.arms[0]!.binDir;
  const driver = createDriver(w, {
    clientBinDir,
    cpuCount: 1,
    runner: clientRunner,
    logger: deps.logger,
    searchPath: '',
    ...(deps.runAs ? { clientUser: deps.runAs } : {}),
  });
  return { clientRunner, clientBinDir, driver };
}

/** An initialised server of a phase's own for `arm` ("<arm>/<what>" in messages), under --tmp-dir. */
export function phaseCluster(
  arm: ArmSpec,
  what: string,
  conf: ClusterSpec['conf'],
  req: Pick<InstructionPhaseRequest, 'tmpDir' | 'dataChecksums'>,
  deps: Pick<InstructionPhaseDeps, 'runner' | 'logger'> & { runAs: RunAsUser | undefined },
): Promise<PgCluster> {
  return PgCluster.create(
    {
      label: `${arm.label}/${what}`,
      binDir: arm.binDir,
      ...(req.tmpDir ? { parentDir: req.tmpDir } : {}),
      conf,
      ...(deps.runAs ? { runAs: deps.runAs } : {}),
      dataChecksums: req.dataChecksums,
    },
    deps,
  );
}

interface ArmServer {
  arm: ArmSpec;
  cluster: PgCluster;
  /** Where the counter writes: cachegrind's files of the backends, or perf stat's output per counted run. */
  countDir: string;
  /** Per repetition: the client backends' profiles of the short and the long run. */
  runs: Array<{ short: CachegrindProfile[]; long: CachegrindProfile[]; files: string[] }>;
}

async function measureWorkload(
  w: PgbenchWorkload,
  settings: InstructionSettings,
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps & {
    runAs: RunAsUser | undefined;
    counter: Counter;
    fixedLayout: readonly string[];
  },
  record: InstructionsRecord,
  options: { what: string; profileDir: string },
): Promise<void> {
  const { logger } = deps;
  const { clientRunner, clientBinDir, driver } = phaseClient(w, req, deps);
  const servers: ArmServer[] = [];
  try {
    await logger.group(`${options.what}: ${w.name}`, async () => {
      for (const arm of req.arms) {
        deps.signal?.throwIfAborted();
        servers.push(await startServer(w, arm, driver, req, deps));
      }
      for (let rep = 1; rep <= settings.repetitions; rep++) {
        // Interleaved, the order turned every repetition: base, head, then head, base.
        const order = rep % 2 === 1 ? servers : [...servers].reverse();
        for (const server of order) {
          deps.signal?.throwIfAborted();
          const sample = await measureRepetition(w, settings, rep, server, clientBinDir, {
            ...deps,
            runner: clientRunner,
            // perf attaches to the postmaster as pgperf itself, which started it.
            counterRunner: deps.runner,
          });
          record.samples.push(sample);
          logger.info(
            `${options.what} ${w.name} ${server.arm.label} #${rep}/${settings.repetitions}: ${Math.round(sample.perTx)} instr/tx`,
          );
        }
      }
      if (deps.counter.kind === 'cachegrind') {
        record.profiles.push(...(await writeProfiles(w, settings, servers, req.runDir, options.profileDir)));
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
    for (const s of servers) await s.cluster.destroy();
  }
}

/** initdb, load the data without cachegrind (it would take minutes), then restart under cachegrind. */
async function startServer(
  w: PgbenchWorkload,
  arm: ArmSpec,
  driver: Driver,
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps & {
    runAs: RunAsUser | undefined;
    counter: Counter;
    fixedLayout: readonly string[];
  },
): Promise<ArmServer> {
  const cluster = await phaseCluster(
    arm,
    'instructions',
    {
      maxClients: Math.max(...w.clients),
      workloadSettings: w.settings,
      armSettings: { ...QUIET_SETTINGS, ...arm.settings, ...CONNECTION_LOG_SETTINGS },
    },
    req,
    deps,
  );
  try {
    await cluster.start();
    await driver.prepare(cluster, deps.signal);
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
  } catch (e) {
    await cluster.destroy();
    throw e;
  }
}

/**
 * Every table and index of the data set into shared buffers, so no counted run pays for reading a page in
 * (that cost falls on the first transactions to touch each page, and would not cancel in the difference).
 * False when pg_prewarm (contrib) is not installed.
 */
async function prewarm(cluster: PgCluster): Promise<boolean> {
  try {
    await cluster.psql('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
  } catch {
    return false;
  }
  await cluster.psql(
    "SELECT sum(pg_prewarm(c.oid)) FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')",
  );
  return true;
}

/**
 * No background work on the counting servers: an autovacuum of a system catalog invalidates the relcache
 * init file, and the next backend rebuilds it (about 2 million instructions, seen on one short run in three),
 * which does not cancel in the difference of the two runs. An arm's own setting still wins.
 */
const QUIET_SETTINGS: Readonly<Record<string, string>> = { autovacuum: 'off' };

/** `setarch -R` (ADDR_NO_RANDOMIZE for the command and its children) where it runs, else nothing. */
async function fixedLayoutPrefix(runner: ProcessRunner): Promise<string[]> {
  const probe = await runner.run('setarch', ['-R', 'true']).catch(() => undefined);
  return probe?.exitCode === 0 ? ['setarch', '-R'] : [];
}

/** valgrind's cachegrind without cache simulation, one output file per process (backends are forked). */
export function cachegrindWrapper(outDir: string): string[] {
  return [
    'valgrind',
    '--tool=cachegrind',
    '--cache-sim=no',
    '--quiet',
    `--cachegrind-out-file=${path.join(outDir, 'cg.%p')}`,
  ];
}

async function measureRepetition(
  w: PgbenchWorkload,
  settings: InstructionSettings,
  rep: number,
  server: ArmServer,
  clientBinDir: string,
  deps: InstructionPhaseDeps & { counter: Counter; counterRunner: ProcessRunner },
): Promise<InstructionSample> {
  const { cluster } = server;
  // The same keys for every arm in a repetition; short and long differ only in their length.
  const seed = 1000 + rep;
  if (rep === 1 && settings.warmup > 0) {
    await runTransactions(w, cluster, settings.warmup, seed, clientBinDir, deps);
  }
  let shortInstructions: number;
  let longInstructions: number;
  if (deps.counter.kind === 'perf') {
    const event = deps.counter.event;
    const count = (transactions: number, length: string) =>
      perfCountedRun(w, server, transactions, seed, clientBinDir, { ...deps, event }, `${rep}.${length}`);
    shortInstructions = await count(settings.short, 'short');
    longInstructions = await count(settings.long, 'long');
  } else {
    const short = await countedRun(w, server, settings.short, seed, clientBinDir, deps);
    const long = await countedRun(w, server, settings.long, seed, clientBinDir, deps);
    server.runs.push({ short: short.profiles, long: long.profiles, files: long.files });
    shortInstructions = sumIr(short.profiles);
    longInstructions = sumIr(long.profiles);
  }
  return {
    workload: w.name,
    clients: INSTRUCTION_CLIENTS,
    arm: server.arm.label,
    repetition: rep,
    counter: deps.counter.kind,
    shortInstructions,
    longInstructions,
    perTx: perTransaction(shortInstructions, longInstructions, settings),
  };
}

/**
 * One pgbench run of `transactions` with perf attached to the postmaster: the count of its event. perf
 * stays attached until the run's backends have exited: a child's count joins the total only at its exit.
 */
async function perfCountedRun(
  w: PgbenchWorkload,
  server: ArmServer,
  transactions: number,
  seed: number,
  clientBinDir: string,
  deps: InstructionPhaseDeps & { event: string; counterRunner: ProcessRunner },
  name: string,
): Promise<number> {
  if (transactions === 0) return 0;
  const pid = await server.cluster.postmasterPid();
  if (pid === undefined) throw new Error(`arm ${server.arm.label}: the server is not running`);
  const out = path.join(server.countDir, `perf-stat.${name}.csv`);
  return countDuring(pid, deps.event, out, deps.counterRunner, async () => {
    const pids = await runAndFindBackends(w, server, transactions, seed, clientBinDir, deps);
    await waitForExit(pids, deps.signal);
  });
}

/** Runs `transactions` with pgbench; the pids of the backends it opened, from the connection log. */
async function runAndFindBackends(
  w: PgbenchWorkload,
  server: ArmServer,
  transactions: number,
  seed: number,
  clientBinDir: string,
  deps: InstructionPhaseDeps,
): Promise<number[]> {
  const { cluster } = server;
  const logBefore = (await readFile(cluster.logFile, 'utf8').catch(() => '')).length;
  await runTransactions(w, cluster, transactions, seed, clientBinDir, deps);
  const log = (await readFile(cluster.logFile, 'utf8')).slice(logBefore);
  const pids = clientBackendPids(log, APP_NAME);
  if (pids.length === 0) {
    throw new Error(
      `arm ${server.arm.label}: no pgbench connection in the server log (${cluster.logFile}); log_connections did not take effect`,
    );
  }
  return pids;
}

/** Waits until every pid has exited (a zombie has: its counts are folded at exit, before it is reaped). */
async function waitForExit(pids: readonly number[], signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + FILE_WAIT_S * 1000;
  for (const pid of pids) {
    while (!(await hasExited(pid))) {
      signal?.throwIfAborted();
      if (Date.now() > deadline) throw new Error(`backend ${pid} did not exit within ${FILE_WAIT_S} s`);
      await sleep(10);
    }
  }
}

function sumIr(profiles: readonly CachegrindProfile[]): number {
  return profiles.reduce((s, p) => s + p.totalIr, 0);
}

/** One pgbench run of `transactions`; the profiles of the backends it opened (its setup and its client). */
async function countedRun(
  w: PgbenchWorkload,
  server: ArmServer,
  transactions: number,
  seed: number,
  clientBinDir: string,
  deps: InstructionPhaseDeps,
): Promise<{ profiles: CachegrindProfile[]; files: string[] }> {
  if (transactions === 0) return { profiles: [], files: [] };
  const pids = await runAndFindBackends(w, server, transactions, seed, clientBinDir, deps);
  const files = pids.map((pid) => path.join(server.countDir, `cg.${pid}`));
  const profiles = await Promise.all(files.map((f) => waitForProfile(f, deps.signal)));
  return { profiles, files };
}

/** `transactions` of the workload with pgbench at 1 client (without pipeline), seeded; throws when it fails. */
export async function runTransactions(
  w: PgbenchWorkload,
  cluster: PgCluster,
  transactions: number,
  seed: number,
  clientBinDir: string,
  deps: InstructionPhaseDeps,
): Promise<void> {
  const args = measureArgs({
    workload: w,
    connection: cluster.connection,
    clients: INSTRUCTION_CLIENTS,
    durationS: 0,
    seed,
    cpuCount: 1,
    transactions,
  });
  const res = await deps.runner.run(path.join(clientBinDir, 'pgbench'), args, {
    env: { LC_ALL: 'C', PGAPPNAME: APP_NAME },
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  if (res.exitCode !== 0) {
    throw new Error(
      `arm ${cluster.label}: pgbench -t ${transactions} failed (${describeExit(res)}): ${tail(res.stderr, 5)}`,
    );
  }
}

/** A backend writes its file when it exits, after pgbench has gone: wait until the file is complete. */
async function waitForProfile(file: string, signal?: AbortSignal): Promise<CachegrindProfile> {
  const deadline = Date.now() + FILE_WAIT_S * 1000;
  for (;;) {
    signal?.throwIfAborted();
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined && /\nsummary: /.test(text)) return parseCachegrind(text, file);
    if (Date.now() > deadline) {
      throw new Error(`${file}: the backend wrote no complete cachegrind file within ${FILE_WAIT_S} s`);
    }
    await sleep(100);
  }
}

/**
 * Per head arm, the differential profile against arms[0] from each arm's median repetition: the full table
 * as a file under <runDir>/<profileDir>/ (with the long runs' cachegrind files, for cg_annotate), the
 * largest movers in results.json.
 */
async function writeProfiles(
  w: PgbenchWorkload,
  settings: InstructionSettings,
  servers: readonly ArmServer[],
  runDir: string,
  profileDir: string,
): Promise<InstructionProfile[]> {
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
  }
  const [base, ...heads] = servers;
  const profiles: InstructionProfile[] = [];
  for (const head of heads) {
    const rows = diffProfiles(armRuns(base!), armRuns(head));
    const file = path.join(profileDir, `${w.name}.${head.arm.label}-vs-${base!.arm.label}.tsv`);
    await writeFile(
      path.join(runDir, file),
      profileText(
        rows,
        `${w.name} at ${INSTRUCTION_CLIENTS} client: ${head.arm.label} vs ${base!.arm.label}`,
      ),
    );
    profiles.push({
      workload: w.name,
      clients: INSTRUCTION_CLIENTS,
      base: base!.arm.label,
      head: head.arm.label,
      file,
      movers: rows.slice(0, KEPT_MOVERS),
    });
  }
  return profiles;
}
