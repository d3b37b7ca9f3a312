/**
 * `pgperf attribute`: the commits between --from and --to (first-parent line) that moved the instructions
 * per transaction of the workloads by the floor or more, each with its change and its share of the
 * end-to-end change (docs/attribute.md). Exit 0 when the attribution finished (whatever it found), 2 on
 * bad input.
 */
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_MAX_COMMITS,
  checkAttributionRequest,
  runAttribution,
  type AttributionRequest,
} from '../../../flows/attribute/attribution-flow.js';
import { DEFAULT_REPO, parseRepo } from '../../../postgres/builds/source.js';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import { renderAttributionText } from '../../../core/report/attribution/attribution-text.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { ATTRIBUTE_COUNTED, rangeText } from '../../../core/bounds.js';
import { nodeProcessRunner } from '../../../machine/os/process.js';
import {
  collectString,
  oneOf,
  positiveInt,
  printable,
  refArg,
  runAsArg,
  workloadOptionHelp,
} from '../flag-parsers.js';
import { checkOutDir, checkTmpDir } from '../validate.js';
import { cacheDirHelp, checkedCacheDir } from '../cache-dir-option.js';
import { withInterrupt } from '../stop-scope.js';

interface AttributeFlags {
  repo: string;
  from: string;
  to: string;
  workload: string[];
  floor?: number;
  maxCommits: number;
  instructionCounter: 'auto' | 'cachegrind' | 'perf';
  cacheDir?: string;
  buildOption: string[];
  out: string;
  runAs?: string;
  tmpDir?: string;
  json: boolean;
  verbose: boolean;
}

/** The workload counted when none is given: read-only point queries, the steadiest counts. */
const DEFAULT_WORKLOAD = 'select-only';

/** --floor: a percentage above 0 and at most 100 ("0.5", "2"). */
function floorArg(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0 && n <= 100)) {
    throw new InvalidArgumentError(
      `--floor must be a percentage above 0 and at most 100 (such as 0.5), got '${printable(value)}'`,
    );
  }
  return n;
}

export function attributeCommand(): Command {
  const command = new Command('attribute')
    .description(
      'name every commit between --from and --to (first-parent line) that moved the instructions per transaction, with its change and share',
    )
    .option('--repo <url|path>', 'git URL or local repository', DEFAULT_REPO)
    .requiredOption('--from <ref>', 'the older end of the range (an ancestor of --to)', refArg('--from'))
    .requiredOption('--to <ref>', 'the newer end of the range', refArg('--to'))
    .option(
      '--workload <file|name...>',
      workloadOptionHelp(`the workloads to count (default ${DEFAULT_WORKLOAD}; pgbench without pipeline)`),
    )
    .option(
      '--floor <pct>',
      "the smallest change in instructions per transaction a commit is named for, in percent (default: each workload's instructions threshold, 1)",
      floorArg,
    )
    .option(
      '--max-commits <n>',
      `commits counted at most, the ends included (${rangeText(ATTRIBUTE_COUNTED)})`,
      positiveInt('--max-commits', ATTRIBUTE_COUNTED),
      DEFAULT_MAX_COMMITS,
    )
    .addOption(
      new Option(
        '--instruction-counter <counter>',
        "what counts instructions: auto (the CPU's counter where perf can count instructions:u, else cachegrind), cachegrind or perf",
      )
        .argParser(oneOf('--instruction-counter', ['auto', 'cachegrind', 'perf'] as const))
        .default('auto'),
    )
    .option('--cache-dir <dir>', cacheDirHelp())
    .option(
      '--build-option <option>',
      'extra build option for every build: -DNAME=VALUE (meson) or --with-X (configure) (repeatable)',
      collectString,
      [],
    )
    .option('--out <dir>', 'where attribution.json and the counting runs go', 'pgperf-attribution')
    .option(
      '--run-as <user>',
      'unprivileged user to run PostgreSQL as when pgperf is root (default: a dedicated user pgperf, created if missing)',
      runAsArg('--run-as'),
    )
    .option('--tmp-dir <dir>', 'where the clusters live while counting (default: the OS temp dir)')
    .option('--json', 'print the report as JSON', false)
    .option('-v, --verbose', 'debug output', false);
  return command.action(async (flags: AttributeFlags) => {
    const logger = consoleLogger({ verbose: flags.verbose });
    const workloads = [];
    for (const ref of flags.workload ?? [DEFAULT_WORKLOAD]) {
      workloads.push(...(await loadWorkloads(ref, { what: '--workload' })));
    }
    checkAttributionRequest({ workloads, floorPct: flags.floor, maxCommits: flags.maxCommits });
    await checkOutDir(flags.out);
    await checkTmpDir(flags.tmpDir);
    const request: AttributionRequest = {
      repo: parseRepo(flags.repo, process.cwd()),
      from: flags.from,
      to: flags.to,
      cacheDir: await checkedCacheDir(flags.cacheDir),
      extraOptions: flags.buildOption,
      workloads,
      ...(flags.floor !== undefined ? { floorPct: flags.floor } : {}),
      maxCommits: flags.maxCommits,
      instructionCounter: { counter: flags.instructionCounter },
      ...(flags.runAs !== undefined ? { runAs: flags.runAs } : {}),
      ...(flags.tmpDir !== undefined ? { tmpDir: flags.tmpDir } : {}),
      outDir: path.resolve(flags.out),
    };
    const report = await withInterrupt(logger, (signal) =>
      runAttribution(request, { runner: nodeProcessRunner, logger, signal }),
    );
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderAttributionText(report));
  });
}
