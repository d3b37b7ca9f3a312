/**
 * `pgperf run`: its flags, read once into the comparison's options (checked and made the pipeline's request
 * in src/flows/compare/options/comparison-options.ts, the arms in arm-source.ts), then the run.
 */
import { Command, Option } from 'commander';
import { DEFAULT_REPO } from '../../../postgres/builds/source.js';
import { CFBOT_REPO, commitfestEntryOf } from '../../../postgres/builds/commitfest.js';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import {
  armSourceOf,
  storedBaselineArmSource,
  type ArmNames,
  type ArmOptions,
} from '../../../flows/compare/options/arm-source.js';
import { parseShardSpec } from '../../../run/shards.js';
import {
  DEFAULT_SENTINEL_ROUNDS,
  parseBaselineSpec,
} from '../../../flows/compare/baseline/stored-baseline.js';
import { comparisonOf, type ComparisonNames } from '../../../flows/compare/options/comparison-options.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { consoleLogger, type Logger } from '../../../core/util/logger.js';
import {
  ADAPTIVE_FLAG_NAMES,
  addAdaptiveOptions,
  addFixedRoundsOption,
  adaptiveOptionsOf,
  type AdaptiveFlags,
} from '../adaptive-flags.js';
import { addAnalysisOptions, analysisFromFlags, type AnalysisFlags } from '../analysis-flags.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { executeRun } from '../execute-run.js';
import { stopOnSignals, type StopScope } from '../stop-scope.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { checkOutDir, checkTmpDir } from '../validate.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../../../core/compare/analysis/confirmation.js';
import { CLIENTS, CLIENT_COUNTS, EXTRA_ROUNDS, rangeText } from '../../../core/bounds.js';
import {
  clientCounts,
  collectArm,
  collectSet,
  nonNegativeInt,
  oneOf,
  positiveInt,
  workloadOptionHelp,
  type ArmFlag,
  type SetFlag,
  addMeasureOptions,
  type MeasureFlags,
  refArg,
} from '../flag-parsers.js';
import { cacheDirHelp, checkedCacheDir } from '../cache-dir-option.js';
import { collectString } from '../flag-parsers.js';

/** Flags that build the arms from source instead of taking bin dirs. */
export interface BuildArmFlags {
  repo?: string;
  base?: string;
  head?: string;
  /** A commitfest entry id: head is its cfbot branch cf/<id>, base its merge-base with --base (master). */
  cf?: string;
  basePatch: string[];
  headPatch: string[];
  mergeBase: boolean;
  cacheDir?: string;
  buildOption: string[];
}

interface RunFlags extends BuildArmFlags, AnalysisFlags, AdaptiveFlags, FailOnFlags, MeasureFlags {
  arm?: ArmFlag[];
  /** Fixed rounds instead of the adaptive default. */
  fixedRounds: boolean;
  workload: string[];
  /** --clients: the client counts of every workload, instead of each workload's own. */
  clients?: number[];
  seed?: number;
  order: 'random' | 'abba';
  clientBin?: string;
  set: SetFlag[];
  dataChecksums: boolean;
  shard?: string;
  strict: boolean;
  force: boolean;
  diagnostics: boolean;
  /** Absent: the default evidence (src/run/counted/default-evidence.ts). */
  instructions?: boolean;
  plans?: boolean;
  instructionCounter: 'auto' | 'cachegrind' | 'perf';
  perfEvent?: string;
  confirmRounds: number;
  explain: boolean;
  cpuDmaLatency?: number;
  governor?: string;
  /** Tests: the sysfs tree whose cpufreq files --governor writes (hidden). */
  sysfsRoot?: string;
  /** A directory or URL; false with --no-store. */
  store?: string | false;
  baseline: string;
  allowFingerprintMismatch: boolean;
  sentinelRounds: number;
  onDrift: 'refuse' | 'inconclusive';
  verbose: boolean;
}

export function runCommand(): Command {
  const command = new Command('run').description(
    'run workloads against two or more PostgreSQL installs (arms), interleaved, and save every sample',
  );
  addArmOptions(command);
  addPlanOptions(command);
  addEvidenceOptions(command);
  addControlOptions(command);
  addStoreOptions(command);
  command.option('-v, --verbose', 'debug output', false);
  addMeasureOptions(command, {
    rounds: "fixed rounds for every workload (overrides the workloads'; with neither, rounds are adaptive)",
  });
  addAnalysisOptions(command, 'run');
  addAdaptiveOptions(command);
  addFixedRoundsOption(command);
  addFailOnOption(command);
  return command.action(runFromFlags);
}

/** The arms: installed bin dirs (--arm), or base and head built from source (--base, --head, patches). */
function addArmOptions(command: Command): Command {
  return command
    .option(
      '--arm <label=bindir>',
      'an arm: label and PostgreSQL bin directory (repeat; the first is the baseline)',
      collectArm,
    )
    .option(
      '--repo <url|path>',
      `git URL or local repository to build --base/--head from (default ${DEFAULT_REPO}; with --cf ${CFBOT_REPO})`,
    )
    .option(
      '--cf <id>',
      'a commitfest entry as head: build the branch cf/<id> of --repo against its merge-base with --base (default master); the id is recorded',
    )
    .option(
      '--base <ref>',
      'build this branch, tag or sha as the baseline arm "base" (instead of --arm)',
      refArg('--base'),
    )
    .option(
      '--head <ref>',
      'build this ref as the arm "head" (default: --base, when --head-patch is given)',
      refArg('--head'),
    )
    .option('--base-patch <file...>', 'patches applied to base, in order', [])
    .option(
      '--head-patch <file...>',
      'patches applied to head, in order (git am for mail format, else git apply)',
      [],
    )
    .option('--merge-base', 'build the merge-base of --base and --head as the baseline (recorded)', false)
    .option('--cache-dir <dir>', cacheDirHelp())
    .option(
      '--build-option <option>',
      'extra build option for both arms: -DNAME=VALUE (meson) or --with-X (configure) (repeatable)',
      collectString,
      [],
    );
}

/**
 * What runs, and in which order: the workloads and their client counts, seed and arm order, the client,
 * per-arm settings, the shard.
 */
function addPlanOptions(command: Command): Command {
  return command
    .requiredOption('--workload <file|name...>', workloadOptionHelp())
    .option(
      '--clients <list>',
      `client counts for every workload instead of its own, comma-separated (e.g. 1,4,64; each ${rangeText(CLIENTS)}, at most ${CLIENT_COUNTS.max})`,
      clientCounts('--clients'),
    )
    .option(
      '--seed <n>',
      'seed for the run order and client random seeds (default: random, recorded)',
      positiveInt('--seed'),
    )
    .addOption(
      new Option('--order <order>', 'arm order within a cell: random per round, or counterbalanced abba')
        .argParser(oneOf('--order', ['random', 'abba'] as const))
        .default('random'),
    )
    .option(
      '--client-bin <dir>',
      "bin dir of the one pgbench that drives every arm (default: the first arm's)",
    )
    .option(
      '--set <arm:name=value>',
      'a postgresql.conf setting for one arm only (repeatable)',
      collectSet,
      [],
    )
    .option(
      '--data-checksums',
      'initdb with data checksums (default: off, pinned, since PG18 turned them on)',
      false,
    )
    .option('--shard <i/n>', 'run only shard I of N of the cells (see pgperf plan; consolidate the shards)');
}

/**
 * What the run checks and gathers beside the timed rounds: machine and plan checks, diagnostics, the
 * confirmation block, instruction counts and profiles.
 */
function addEvidenceOptions(command: Command): Command {
  return command
    .option('--strict', 'refuse to measure when the machine check says "not fit for benchmarking"', false)
    .option(
      '--force',
      'run a plan that cannot reach significance in any cell (by default refused before anything starts)',
      false,
    )
    .option('--no-diagnostics', 'do not sample wait events and counters during the runs')
    .option(
      '--confirm-rounds <n>',
      `rounds of the confirmation block that measures a regressed cell again before the gate fails it (0: none; ${rangeText(EXTRA_ROUNDS)})`,
      nonNegativeInt('--confirm-rounds', EXTRA_ROUNDS),
      DEFAULT_CONFIRM_ROUNDS,
    )
    .option(
      '--explain',
      'after the rounds, a differential profile (cachegrind, 1 client) of each workload whose throughput changed (docs/instructions.md)',
      false,
    )
    .option(
      '--instructions',
      'count CPU instructions per transaction for every workload, refusing one that cannot be counted (by default counted for every pgbench workload without pipeline; docs/instructions.md)',
    )
    .option(
      '--no-instructions',
      'count no instructions (and take no default plans): the timed rounds alone decide',
    )
    .option(
      '--plans',
      "take every pgbench statement's plan per arm and its pg_stat_statements costs on servers of their own (by default the plans alone are taken on the counting servers; docs/plans.md)",
    )
    .option('--no-plans', 'take no plans')
    .addOption(
      new Option(
        '--instruction-counter <counter>',
        "what counts instructions: auto (the CPU's counter where perf can count instructions:u, else cachegrind), cachegrind (simulated, with a per-function profile) or perf",
      )
        .argParser(oneOf('--instruction-counter', ['auto', 'cachegrind', 'perf'] as const))
        .default('auto'),
    )
    .addOption(
      new Option(
        '--perf-event <event>',
        'count this perf event instead of instructions:u (tests)',
      ).hideHelp(),
    );
}

/** Machine controls held over the measured runs (opt-in, restored). */
function addControlOptions(command: Command): Command {
  return command
    .option(
      '--cpu-dma-latency <us>',
      'hold /dev/cpu_dma_latency at this many µs over the measured runs (0: idle CPUs only poll; needs root; restored)',
      nonNegativeInt('--cpu-dma-latency'),
    )
    .option(
      '--governor <name>',
      'set this cpufreq governor on every CPU over the measured runs (e.g. performance; needs root; restored)',
    )
    .addOption(
      new Option('--sysfs-root <dir>', 'read and write cpufreq files under this tree (tests)').hideHelp(),
    );
}

/** The results store, and a baseline read from it instead of measured here. */
function addStoreOptions(command: Command): Command {
  return command
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--no-store', 'do not save the run to the results store')
    .option(
      '--baseline <same-job|stored[:REF]>',
      'same-job: measure base here (default); stored: compare head with the newest stored run on this fingerprint; stored:REF: with the newest stored run of that sha prefix or ref',
      'same-job',
    )
    .option(
      '--allow-fingerprint-mismatch',
      'with --baseline stored: compare even when the stored run was measured under another environment (the report says so)',
      false,
    )
    .option(
      '--sentinel-rounds <n>',
      `with --baseline stored: rounds re-measuring the stored base install with head, to detect machine drift (0: none; ${rangeText(EXTRA_ROUNDS)})`,
      nonNegativeInt('--sentinel-rounds', EXTRA_ROUNDS),
      DEFAULT_SENTINEL_ROUNDS,
    )
    .addOption(
      new Option(
        '--on-drift <action>',
        'with --baseline stored: when the sentinel finds drift, refuse or mark inconclusive',
      )
        .argParser(oneOf('--on-drift', ['refuse', 'inconclusive'] as const))
        .default('inconclusive'),
    );
}

/** How `pgperf run` spells the options the comparison's and the arms' checks name. */
export const RUN_FLAG_NAMES: ComparisonNames & ArmNames = {
  ...ADAPTIVE_FLAG_NAMES,
  adaptive: '--max-rounds/--time-budget',
  fixedRounds: '--fixed-rounds',
  rounds: '--rounds',
  workloads: '--workload',
  clients: '--clients',
  confirmRounds: '--confirm-rounds',
  duration: '--duration',
  baseline: '--baseline',
  shard: '--shard',
  seed: '--seed',
  cpuDmaLatency: '--cpu-dma-latency',
  governor: '--governor',
  arms: '--arm',
  settings: '--set',
  repo: '--repo',
  commitfest: '--cf',
  base: '--base',
  head: '--head',
  basePatches: '--base-patch',
  headPatches: '--head-patch',
  mergeBase: '--merge-base',
};

/**
 * The command's action: the flags as the comparison's options (checked in comparisonOf), then the run. Ctrl-C
 * is handled from the first step (stop-scope.ts): a signal while the workloads are read and the plan checked
 * ends the command before anything starts.
 */
async function runFromFlags(flags: RunFlags): Promise<void> {
  const logger = consoleLogger({ verbose: flags.verbose });
  const stop = stopOnSignals(logger);
  try {
    await checkAndRun(flags, logger, stop);
  } finally {
    stop.dispose();
  }
}

async function checkAndRun(flags: RunFlags, logger: Logger, stop: StopScope): Promise<void> {
  const workloads = [];
  for (const ref of flags.workload) {
    workloads.push(...(await loadWorkloads(ref, { what: '--workload' })));
    stop.throwIfStopped();
  }
  const baseline = parseBaselineSpec(flags.baseline, '--baseline');
  if (baseline.kind === 'stored' && flags.store === false) {
    throw new UserError('--baseline stored reads the baseline from the results store: drop --no-store');
  }
  const arms = armOptionsOf(flags);
  const { request, stored } = comparisonOf(
    {
      arms:
        baseline.kind === 'stored'
          ? storedBaselineArmSource(arms, RUN_FLAG_NAMES)
          : await armSourceOf(arms, RUN_FLAG_NAMES),
      workloads,
      ...(flags.clients ? { clients: flags.clients } : {}),
      ...(flags.instructions !== undefined ? { instructions: flags.instructions } : {}),
      ...(flags.plans !== undefined ? { plans: flags.plans } : {}),
      ...(flags.shard ? { shard: shardSpec(flags.shard) } : {}),
      seed: flags.seed,
      baseline,
      storedBaseline: {
        allowFingerprintMismatch: flags.allowFingerprintMismatch,
        sentinelRounds: flags.sentinelRounds,
        onDrift: flags.onDrift,
      },
      analysis: analysisFromFlags(flags),
      adaptive: adaptiveOptionsOf(flags),
      rounds: flags.rounds,
      fixedRounds: flags.fixedRounds,
      durationS: flags.duration,
      confirmRounds: flags.confirmRounds,
      explain: flags.explain,
      instructionCounter: {
        counter: flags.instructionCounter,
        ...(flags.perfEvent !== undefined ? { perfEvent: flags.perfEvent } : {}),
      },
      order: flags.order,
      force: flags.force,
      strictPreflight: flags.strict,
      diagnostics: flags.diagnostics,
      clientBinDir: flags.clientBin,
      runAs: flags.runAs,
      dataChecksums: flags.dataChecksums,
      tmpDir: flags.tmpDir,
      controls: { cpuDmaLatencyUs: flags.cpuDmaLatency, governor: flags.governor, root: flags.sysfsRoot },
      // --cf ID: the entry, recorded in the results (`source.commitfest`) and named by the reports.
      ...(flags.cf !== undefined ? { source: { commitfest: commitfestEntryOf(flags.cf, '--cf') } } : {}),
    },
    RUN_FLAG_NAMES,
  );
  // Every directory it writes, created and proven writable before the store is opened and anything is
  // built or started (the build cache was checked with the arms).
  stop.throwIfStopped();
  await checkOutDir(flags.out);
  await checkTmpDir(flags.tmpDir);
  const store = flags.store === false ? undefined : await openCliStore(flags.store, logger, true);
  try {
    await executeRun(
      {
        ...request,
        outDir: flags.out,
        ...(stored && store ? { storedBaseline: { ...stored, store } } : {}),
      },
      logger,
      { ...(store ? { archive: store } : {}), failOn: flags.failOn, stop },
    );
  } finally {
    await store?.close();
  }
}

/** --shard I/N, parsed. */
function shardSpec(text: string): { index: number; count: number } {
  try {
    return parseShardSpec(text, '--shard');
  } catch (e) {
    throw new UserError(errorMessage(e));
  }
}

/** The arm flags as the arms' plain options (checked in armSourceOf). */
export function armOptionsOf(flags: BuildArmFlags & { arm?: ArmFlag[]; set?: SetFlag[] }): ArmOptions {
  return {
    installed: flags.arm,
    settings: flags.set,
    repo: flags.repo,
    defaultRepo: DEFAULT_REPO,
    cwd: process.cwd(),
    base: flags.base,
    head: flags.head,
    commitfest: flags.cf,
    basePatches: flags.basePatch,
    headPatches: flags.headPatch,
    mergeBase: flags.mergeBase,
    buildOptions: flags.buildOption,
    cacheDir: () => checkedCacheDir(flags.cacheDir),
  };
}
