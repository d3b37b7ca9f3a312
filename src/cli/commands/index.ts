import type { Command } from 'commander';

/** Every subcommand, in the order `pgperf --help` lists them. */
export const commands: Array<() => Command> = [];
