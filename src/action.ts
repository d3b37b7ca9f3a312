/**
 * GitHub Action adapter. The action itself (inputs, PR comment, gating) is built on top of the engine in
 * a later step; until then it fails with a clear message instead of pretending to work.
 */
import { UserError } from './util/errors.js';

export async function run(): Promise<void> {
  const message = new UserError(
    'the pgperf GitHub Action is not implemented yet; use the pgperf CLI (see README.md)',
  ).message;
  process.stdout.write(`::error::${message}\n`);
  process.exitCode = 1;
}
