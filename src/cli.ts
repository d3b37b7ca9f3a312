import { main } from './adapters/cli/commands/main.js';
import { endOutputOnClosedPipe } from './machine/os/closed-pipe.js';
import { endWhenDone } from './machine/os/end-process.js';
import { installLateSignalGuard } from './machine/os/signals.js';

endOutputOnClosedPipe();
installLateSignalGuard();
process.exitCode = await main(process.argv.slice(2));
// A read given up on (a hung mount) still waits in the thread pool: it must not keep pgperf alive.
endWhenDone();
