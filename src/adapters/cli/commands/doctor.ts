import os from 'node:os';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { nodeProcessRunner } from '../../../machine/os/process.js';
import { overallVerdict, preflight, type PreflightReport } from '../../../machine/preflight.js';
import { renderPreflight } from '../../../machine/preflight-text.js';
import { runnerFacts } from '../../../postgres/runner-facts.js';
import { cacheDirHelp, resolveCacheDir } from '../cache-dir-option.js';
import { runAsArg } from '../flag-parsers.js';

interface DoctorFlags {
  json?: boolean;
  strict?: boolean;
  window: number;
  sharedBuffers?: number;
  root: string;
  cacheDir?: string;
  tmpDir?: string;
  runAs?: string;
}

/**
 * `pgperf doctor [--json] [--strict] [--window SECONDS] [--shared-buffers SIZE] [--cache-dir DIR] [--tmp-dir DIR]
 * [--run-as USER]`: is this machine fit to benchmark on, and does this runner have what pgperf needs
 * (docs/runner.md)? Prints the verdict, then every fact with its fix: the machine's (sysfs/procfs), then the
 * runner's (tools, disk, the run-as user). Exits 0, or 1 with --strict when a fact is bad. Reads files and asks
 * the tools whether they run; changes nothing.
 */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'check whether this machine is fit for benchmarking and has what pgperf needs (docs/runner.md), and print the fix for each problem',
    )
    .option('--json', 'print the report as JSON')
    .option('--strict', 'exit 1 when the verdict is "not fit for benchmarking"')
    .option(
      '--window <seconds>',
      'seconds to sample load, steal time and busy processes (default 2)',
      seconds,
      2,
    )
    .option('--shared-buffers <size>', 'check free memory against this shared_buffers (e.g. 8GB)', bytes)
    .option(
      '--root <dir>',
      'read sysfs/procfs under this directory (a captured tree) instead of /; the tool, disk and user checks of this machine are left out',
      '/',
    )
    .option('--cache-dir <dir>', `check free space and access here: the ${cacheDirHelp()}`)
    .option(
      '--tmp-dir <dir>',
      'check free space and access where the clusters will live (default: the OS temp dir, $TMPDIR or /tmp)',
    )
    .option(
      '--run-as <user>',
      'as root: check the user PostgreSQL will run as (default pgperf)',
      runAsArg('--run-as'),
    )
    .action(async (flags: DoctorFlags) => {
      const machine = await preflight({
        root: flags.root,
        windowS: flags.window,
        sharedBuffersBytes: flags.sharedBuffers,
      });
      const report = path.resolve(flags.root) === '/' ? await withRunnerFacts(machine, flags) : machine;
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderPreflight(report));
      if (flags.strict && report.verdict === 'not fit for benchmarking') process.exitCode = 1;
    });
}

/** The machine's report with the runner's facts after its own, and the verdict over all of them. */
async function withRunnerFacts(machine: PreflightReport, flags: DoctorFlags): Promise<PreflightReport> {
  const facts = [
    ...machine.facts,
    ...(await runnerFacts({
      env: process.env,
      runner: nodeProcessRunner,
      uid: process.getuid?.(),
      userName: os.userInfo().username,
      cacheDir: resolveCacheDir(flags.cacheDir),
      tmpDir: path.resolve(flags.tmpDir ?? os.tmpdir()),
      ...(flags.runAs !== undefined ? { runAs: flags.runAs } : {}),
    })),
  ];
  return { ...machine, verdict: overallVerdict(facts), facts };
}

function seconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 600) {
    throw new InvalidArgumentError(`--window must be a number of seconds from 0 to 600, got '${value}'`);
  }
  return n;
}

const UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** PostgreSQL-style sizes: 8GB, 512MB, 128kB (case-insensitive), or bytes. */
function bytes(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?b)?\s*$/i.exec(value);
  if (!m)
    throw new InvalidArgumentError(`--shared-buffers must be a size such as 8GB or 512MB, got '${value}'`);
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 'B').toUpperCase()]!);
}
