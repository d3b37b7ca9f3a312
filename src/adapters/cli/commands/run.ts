import { Command, Option } from 'commander';
import type { ComparisonRequest } from '../../../postgres/builds/build-pair.js';
import { readPatches } from '../../../postgres/builds/patches.js';
import { DEFAULT_REPO, parseRepo } from '../../../postgres/builds/source.js';
import { CFBOT_REPO, commitfestEntryOf, commitfestRefs } from '../../../postgres/builds/commitfest.js';
import type { CommitfestEntry } from '../../../core/results/types.js';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import type { ArmSource } from '../../../flows/compare/pipeline.js';
import { parseShardSpec } from '../../../run/shards.js';
import { DEFAULT_SENTINEL_ROUNDS, parseBaselineSpec } from '../../../flows/compare/stored-baseline.js';
import { comparisonOf, type ComparisonNames } from '../../../flows/compare/comparison-options.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { consoleLogger } from '../../../core/util/logger.js';
import {
  ADAPTIVE_FLAG_NAMES,
  addAdaptiveOptions,
  adaptiveOptionsOf,
  type AdaptiveFlags,
} from '../adaptive-flags.js';
import { addAnalysisOptions, analysisFromFlags, type AnalysisFlags } from '../analysis-flags.js';
import { addFailOnOption, type FailOnFlags } from '../fail-on-option.js';
import { executeRun } from '../execute-run.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { checkArmCount, checkOutDir, checkTmpDir } from '../validate.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../../../core/compare/confirmation.js';
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
} from '../options.js';
import { cacheDirHelp, checkedCacheDir, collectString } from './build.js';

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
  instructions: boolean;
  plans: boolean;
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
  const gated = addFailOnOption(addAdaptiveOptions(addAnalysisOptions(addMeasureOptions(command), 'run')));
  return gated.action(runFromFlags);
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
    .option('--base <ref>', 'build this branch, tag or sha as the baseline arm "base" (instead of --arm)')
    .option('--head <ref>', 'build this ref as the arm "head" (default: --base, when --head-patch is given)')
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
      'also count CPU instructions per transaction for every workload, with its own verdict (docs/instructions.md)',
      false,
    )
    .option(
      '--plans',
      "also take every pgbench statement's plan per arm (EXPLAIN (COSTS OFF)) and its pg_stat_statements costs; the report names the plans that changed (docs/plans.md)",
      false,
    )
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

/** How `pgperf run` spells the options the comparison's checks name. */
export const RUN_FLAG_NAMES: ComparisonNames = {
  ...ADAPTIVE_FLAG_NAMES,
  adaptive: '--max-rounds/--time-budget',
  rounds: '--rounds',
  baseline: '--baseline',
  shard: '--shard',
  seed: '--seed',
  cpuDmaLatency: '--cpu-dma-latency',
  governor: '--governor',
};

/** The command's action: the flags as the comparison's options (checked in comparisonOf), then the run. */
async function runFromFlags(flags: RunFlags): Promise<void> {
  const logger = consoleLogger({ verbose: flags.verbose });
  const workloads = [];
  for (const ref of flags.workload) workloads.push(...(await loadWorkloads(ref, { what: '--workload' })));
  const baseline = parseBaselineSpec(flags.baseline, '--baseline');
  if (baseline.kind === 'stored' && flags.store === false) {
    throw new UserError('--baseline stored reads the baseline from the results store: drop --no-store');
  }
  const { request, stored } = comparisonOf(
    {
      arms: baseline.kind === 'stored' ? storedBaselineArms(flags) : await armSource(flags),
      workloads,
      ...(flags.clients ? { clients: flags.clients } : {}),
      instructions: flags.instructions,
      plans: flags.plans,
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
      ...commitfestSourceOf(flags),
    },
    RUN_FLAG_NAMES,
  );
  // Every directory it writes, created and proven writable before the store is opened and anything is
  // built or started (the build cache was checked with the arms).
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
      { ...(store ? { archive: store } : {}), failOn: flags.failOn },
    );
  } finally {
    await store?.close();
  }
}

/** --cf ID: the entry, recorded in the results (`source.commitfest`) and named by the reports. */
function commitfestSourceOf(flags: RunFlags) {
  if (flags.cf === undefined) return {};
  return { source: { commitfest: commitfestEntryOf(flags.cf, '--cf') } };
}

/** --shard I/N, parsed. */
function shardSpec(text: string): { index: number; count: number } {
  try {
    return parseShardSpec(text, '--shard');
  } catch (e) {
    throw new UserError(errorMessage(e));
  }
}

/** --baseline stored: one installed arm, head; base comes from the store. */
function storedBaselineArms(flags: RunFlags): ArmSource {
  if (wantsBuild(flags)) {
    throw new UserError(
      '--baseline stored compares an installed head: give --arm head=BINDIR, not --base/--head',
    );
  }
  const arms = flags.arm ?? [];
  if (arms.length !== 1) {
    throw new UserError(
      `--baseline stored measures head only: give exactly one --arm LABEL=BINDIR (got ${arms.length})`,
    );
  }
  return { kind: 'installed', arms: armsWithSettings(arms, flags.set) };
}

/** The arms: bin dirs (--arm, with their --set settings), or base and head to build from source. */
async function armSource(flags: RunFlags): Promise<ArmSource> {
  if (wantsBuild(flags)) {
    if (flags.set.length) {
      throw new UserError(
        '--set applies to --arm arms; with --base/--head both arms share one configuration',
      );
    }
    return { kind: 'build', request: await buildRequest(flags) };
  }
  const arms = flags.arm ?? [];
  checkArmCount(arms.length);
  if (arms.length === 0) {
    throw new UserError(
      'nothing to run: give the arms as --arm LABEL=BINDIR (two or more), or build them with --base REF --head REF [--repo URL|PATH]',
    );
  }
  return { kind: 'installed', arms: armsWithSettings(arms, flags.set) };
}

function wantsBuild(flags: RunFlags): boolean {
  return Boolean(
    flags.base ??
    flags.head ??
    (flags.cf || flags.repo || flags.headPatch.length || flags.basePatch.length || flags.mergeBase),
  );
}

/** The refs to build, checked: --base, and --head (or --base again when only head patches differ). */
export function buildArmRefs(flags: BuildArmFlags & { arm?: ArmFlag[] }): {
  base: string;
  head: string;
  /** Set by --cf: the base is the merge-base, and the entry is recorded. */
  commitfest?: CommitfestEntry;
} {
  if (flags.arm?.length) {
    throw new UserError(
      '--arm and --base/--head both given: compare either installed bin dirs (--arm) or builds from source (--base/--head)',
    );
  }
  if (flags.cf !== undefined) return commitfestArmRefs(flags, flags.cf);
  if (!flags.base) {
    throw new UserError(
      '--base REF is required to build the arms from source (with --head REF and/or --head-patch FILE)',
    );
  }
  const head = flags.head ?? (flags.headPatch.length ? flags.base : undefined);
  if (!head) {
    throw new UserError(
      `--base ${flags.base}: give --head REF, or --head-patch FILE to compare ${flags.base} with itself plus patches`,
    );
  }
  if (flags.mergeBase && head === flags.base) {
    throw new UserError('--merge-base needs a --head that differs from --base');
  }
  return { base: flags.base, head };
}

/** --cf ID: head the entry's branch cf/<id>, base its merge-base with --base (default master). */
function commitfestArmRefs(flags: BuildArmFlags, id: string) {
  if (flags.head !== undefined) {
    throw new UserError(
      `--cf ${id} and --head ${flags.head} both given: with --cf, head is the entry's branch cf/${id}`,
    );
  }
  const refs = commitfestRefs(commitfestEntryOf(id, '--cf'), flags.base);
  return { base: refs.baseRef, head: refs.headRef, commitfest: refs.entry };
}

/** What to build: base, then head (sharing ccache), as the arms "base" and "head". */
async function buildRequest(flags: RunFlags): Promise<ComparisonRequest> {
  const refs = buildArmRefs(flags);
  return {
    repo: parseRepo(flags.repo ?? (refs.commitfest ? CFBOT_REPO : DEFAULT_REPO), process.cwd()),
    baseRef: refs.base,
    headRef: refs.head,
    mergeBase: flags.mergeBase || refs.commitfest !== undefined,
    basePatches: await readPatches(flags.basePatch, '--base-patch'),
    headPatches: await readPatches(flags.headPatch, '--head-patch'),
    extraOptions: flags.buildOption,
    cacheDir: await checkedCacheDir(flags.cacheDir),
  };
}

export function armsWithSettings<A extends ArmFlag>(arms: A[], sets: SetFlag[]) {
  for (const s of sets) {
    if (!arms.some((a) => a.label === s.arm)) {
      throw new UserError(
        `--set ${s.arm}:${s.name}=${s.value}: no arm is labelled "${s.arm}" (arms: ${arms.map((a) => a.label).join(', ')})`,
      );
    }
  }
  return arms.map((a) => ({
    ...a,
    settings: Object.fromEntries(sets.filter((s) => s.arm === a.label).map((s) => [s.name, s.value])),
  }));
}
