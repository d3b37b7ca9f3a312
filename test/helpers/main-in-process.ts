/** Runs pgperf's main() in this process, capturing what it writes to stdout and stderr and its exit code. */
import { vi } from 'vitest';
import { main } from '../../src/adapters/cli/commands/main.js';

export interface MainRan {
  code: number;
  stdout: string;
  stderr: string;
}

/** main(args) with process.stdout/stderr captured (and silenced) for the call, restored after it. */
export async function runMain(args: string[]): Promise<MainRan> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
  try {
    const code = await main(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}
