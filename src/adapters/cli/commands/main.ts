/**
 * The `pgperf` command line: one commander program, one module per subcommand under commands/.
 * Commands parse their flags into typed options and call the same pipeline the action uses.
 */
import { Command, CommanderError } from 'commander';
import { runCleanups } from '../../../machine/os/cleanup.js';
import { EXIT_CODES } from '../../../core/compare/decision/decision.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { InterruptedError } from '../../../machine/os/signals.js';
import { PGPERF_VERSION } from '../../../core/version.js';
import { commands } from './index.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('pgperf')
    .description('Continuous performance-regression testing for PostgreSQL')
    .version(PGPERF_VERSION)
    .showHelpAfterError()
    .exitOverride();
  for (const make of commands) program.addCommand(make().exitOverride());
  // Commands report their exit code through process.exitCode; one left by an earlier main() in the same
  // process (a test, an embedding tool) must not become this command's code.
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (e) {
    // Help and --version exit 0; every refused flag or argument is a usage error (2), never the gate's 1.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_CODES.usage;
    if (e instanceof InterruptedError) {
      process.stderr.write(`pgperf: ${e.message}\n`);
      return e.exitCode;
    }
    if (e instanceof UserError) {
      process.stderr.write(`pgperf: ${e.message}\n`);
      return e.exitCode ?? EXIT_CODES.usage;
    }
    process.stderr.write(`pgperf: internal error: ${errorMessage(e)}\n`);
    if (e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    return 70;
  } finally {
    process.exitCode = before;
    // Whatever went wrong (or right), no server or temp directory outlives the command.
    await runCleanups();
  }
}
