import { Command, Option } from 'commander';
import { loadWorkloadFile } from '../../config/load-workload.js';
import { UserError } from '../../util/errors.js';
import { consoleLogger } from '../../util/logger.js';
import { executeRun } from '../execute-run.js';
import { collectArm, collectSet, oneOf, positiveInt, type ArmFlag, type SetFlag } from '../options.js';

interface RunFlags {
  arm: ArmFlag[];
  workload: string[];
  rounds?: number;
  duration?: number;
  out: string;
  seed?: number;
  order: 'random' | 'abba';
  clientBin?: string;
  runAs?: string;
  set: SetFlag[];
  dataChecksums: boolean;
  tmpDir?: string;
  verbose: boolean;
}

export function runCommand(): Command {
  return new Command('run')
    .description(
      'run workloads against two or more PostgreSQL installs (arms), interleaved, and save every sample',
    )
    .requiredOption(
      '--arm <label=bindir>',
      'an arm: label and PostgreSQL bin directory (repeat; the first is the baseline)',
      collectArm,
    )
    .requiredOption('--workload <file...>', 'workload files (workloads/*.yml)')
    .option('--rounds <n>', "rounds (overrides the workloads' rounds)", positiveInt('--rounds'))
    .option(
      '--duration <seconds>',
      "seconds per measured run (overrides the workloads' duration)",
      positiveInt('--duration'),
    )
    .option('--out <dir>', 'results directory', 'pgperf-results')
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
      '--run-as <user>',
      'unprivileged user to run PostgreSQL as when pgperf is root (default: postgres; created if missing)',
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
    .option('--tmp-dir <dir>', 'where the clusters live while running (default: the OS temp dir)')
    .option('-v, --verbose', 'debug output', false)
    .action(async (flags: RunFlags) => {
      const logger = consoleLogger({ verbose: flags.verbose });
      const workloads = [];
      for (const file of flags.workload) workloads.push(await loadWorkloadFile(file));
      await executeRun(
        {
          arms: armsWithSettings(flags.arm, flags.set),
          workloads,
          rounds: flags.rounds,
          durationS: flags.duration,
          seed: flags.seed,
          order: flags.order,
          clientBinDir: flags.clientBin,
          runAs: flags.runAs,
          dataChecksums: flags.dataChecksums,
          tmpDir: flags.tmpDir,
          outDir: flags.out,
        },
        logger,
      );
    });
}

export function armsWithSettings(arms: ArmFlag[], sets: SetFlag[]) {
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
