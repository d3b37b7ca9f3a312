import { main } from './adapters/cli/commands/main.js';

process.exitCode = await main(process.argv.slice(2));
