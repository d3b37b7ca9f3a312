/** Workload files written for a test into its temporary directory. */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';

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

/**
 * select-only at scale 1 and 1 client, short timed rounds, with the instruction mode's settings
 * `instructions` (YAML flow text, e.g. "{ repetitions: 3 }"): the instruction tests' workload.
 */
export function instructionWorkloadFile(dir: string, rounds: number, instructions: string): Promise<string> {
  const text = [
    'name: select-only',
    'tool: pgbench',
    'builtin: select-only',
    'scale: 1',
    'clients: [1]',
    'duration: 1',
    'warmup: 0',
    `rounds: ${rounds}`,
    `instructions: ${instructions}`,
    '',
  ].join('\n');
  return writeWorkloadFile(dir, 'select-only.yml', text);
}
