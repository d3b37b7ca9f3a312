/**
 * The `pgperf` command line: one commander program, one module per subcommand under commands/.
 * Commands parse their flags into typed options and call the same pipeline the action uses.
 */
import { Command, CommanderError } from 'commander';
import { runCleanups } from '../util/cleanup.js';
import { UserError, errorMessage } from '../util/errors.js';
import { InterruptedError } from '../util/signals.js';
import { PGPERF_VERSION } from '../version.js';
import { commands } from './commands/index.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('pgperf')
    .description('Continuous performance-regression testing for PostgreSQL')
    .version(PGPERF_VERSION)
    .showHelpAfterError()
    .exitOverride();
  for (const make of commands) program.addCommand(make().exitOverride());
  try {
    await program.parseAsync(argv, { from: 'user' });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof InterruptedError) {
      process.stderr.write(`pgperf: ${e.message}\n`);
      return e.exitCode;
    }
    if (e instanceof UserError) {
      process.stderr.write(`pgperf: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`pgperf: internal error: ${errorMessage(e)}\n`);
    if (e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    return 70;
  } finally {
    // Whatever went wrong (or right), no server or temp directory outlives the command.
    await runCleanups();
  }
}
