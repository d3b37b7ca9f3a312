/** Workload files written for a test into its temporary directory. */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { instructionWorkloadText } from '../../testkit/instruction-workload.js';

/**
 * Writes `text` to dir/name readable by all (0644: the PostgreSQL server and pgbench may run as another
 * user) and returns the file's path.
 */
export async function writeWorkloadFile(dir: string, name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  await chmod(file, 0o644);
  return file;
}

/** The instruction tests' workload (testkit/instruction-workload.ts) as select-only.yml in `dir`. */
export function instructionWorkloadFile(dir: string, rounds: number, instructions: string): Promise<string> {
  return writeWorkloadFile(dir, 'select-only.yml', instructionWorkloadText(rounds, instructions));
}
