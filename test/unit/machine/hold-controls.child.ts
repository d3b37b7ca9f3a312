/**
 * Child process for the controls test: applies the controls given as JSON in argv[2] (deps root in
 * argv[3]), says "applied" on stdout, and waits. On SIGINT it runs the registered cleanups and exits
 * 130, as the CLI does on a second Ctrl-C.
 */
import { runCleanups } from '../../../src/machine/os/cleanup.js';
import { applyControls } from '../../../src/machine/controls.js';
import { memoryLogger } from '../../../src/core/util/logger.js';

process.on('SIGINT', () => {
  void runCleanups().finally(() => process.exit(130));
});
const spec = JSON.parse(process.argv[2]!);
await applyControls(spec, { logger: memoryLogger(), root: process.argv[3] });
process.stdout.write('applied\n');
setInterval(() => {}, 1000);
