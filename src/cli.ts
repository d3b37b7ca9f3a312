import { main } from './adapters/cli/commands/main.js';
import { endOutputOnClosedPipe } from './adapters/cli/closed-pipe.js';

endOutputOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
