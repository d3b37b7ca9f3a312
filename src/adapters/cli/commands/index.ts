import type { Command } from 'commander';
import { attributeCommand } from './attribute.js';
import { bisectCommand } from './bisect.js';
import { buildCommand } from './build.js';
import { calibrateCommand } from './calibrate.js';
import { changepointsCommand } from './changepoints.js';
import { compareCommand } from './compare.js';
import { consolidateCommand } from './consolidate.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { historyCommand } from './history.js';
import { nightlyCommand } from './nightly.js';
import { planCommand } from './plan.js';
import { runCommand } from './run.js';
import { schemaCommand } from './schema.js';
import { statCommand } from './stat.js';
import { storeCommand } from './store.js';

/** Every subcommand, in the order `pgperf --help` lists them. */
export const commands: Array<() => Command> = [
  runCommand,
  buildCommand,
  demoCommand,
  calibrateCommand,
  compareCommand,
  planCommand,
  consolidateCommand,
  statCommand,
  changepointsCommand,
  historyCommand,
  nightlyCommand,
  bisectCommand,
  attributeCommand,
  schemaCommand,
  storeCommand,
  doctorCommand,
];
