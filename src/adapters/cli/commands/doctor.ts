import { Command, InvalidArgumentError } from 'commander';
import { preflight } from '../../../machine/preflight.js';
import { renderPreflight } from '../../../machine/preflight-text.js';

interface DoctorFlags {
  json?: boolean;
  strict?: boolean;
  window: number;
  sharedBuffers?: number;
  root: string;
}

/**
 * `pgperf doctor [--json] [--strict] [--window SECONDS] [--shared-buffers SIZE]`: is this machine fit to
 * benchmark on? Prints the verdict, then every fact with its fix. Exits 0, or 1 with --strict when a
 * fact is bad. Reads files only; changes nothing.
 */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description('check whether this machine is fit for benchmarking, and print the fix for each problem')
    .option('--json', 'print the report as JSON')
    .option('--strict', 'exit 1 when the verdict is "not fit for benchmarking"')
    .option(
      '--window <seconds>',
      'seconds to sample load, steal time and busy processes (default 2)',
      seconds,
      2,
    )
    .option('--shared-buffers <size>', 'check free memory against this shared_buffers (e.g. 8GB)', bytes)
    .option('--root <dir>', 'read sysfs/procfs under this directory (a captured tree) instead of /', '/')
    .action(async (flags: DoctorFlags) => {
      const report = await preflight({
        root: flags.root,
        windowS: flags.window,
        sharedBuffersBytes: flags.sharedBuffers,
      });
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderPreflight(report));
      if (flags.strict && report.verdict === 'not fit for benchmarking') process.exitCode = 1;
    });
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
