/**
 * main() returns each command's own exit code when called several times in one process (the integration
 * tests do, as may a tool that embeds pgperf): a code left by an earlier command must not become the next
 * one's, and the caller's process.exitCode is left as it was.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/main-in-process.js';

// A real 2-arm run on PostgreSQL 15 with every cell undecided (test/fixtures/results/README.md).
const results = fileURLToPath(
  new URL('../../fixtures/results/pgperf-15-smoke-select-only.json', import.meta.url),
);

/** main(args)'s exit code, its output captured (and silenced). */
const quiet = async (args: string[]): Promise<number> => (await runMain(args)).code;

afterEach(() => {
  process.exitCode = undefined;
});

describe('main exit code', () => {
  it('is each command’s own, whatever an earlier command in the process left behind', async () => {
    expect(await quiet(['compare', results, '--fail-on', 'never'])).toBe(0);
    expect(await quiet(['compare', results, '--fail-on', 'inconclusive'])).toBe(1);
    // A previous command's 0 does not hide this one's failure, nor a previous 1 this one's pass.
    process.exitCode = 0;
    expect(await quiet(['compare', results, '--fail-on', 'inconclusive'])).toBe(1);
    expect(process.exitCode).toBe(0);
    process.exitCode = 1;
    expect(await quiet(['compare', results, '--fail-on', 'regression'])).toBe(0);
    expect(process.exitCode).toBe(1);
  });
});
