/**
 * The exit codes `--help` documents are the ones pgperf exits with (#39 item 7): a run stopped by a signal
 * exits 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM: execute-run.ts, signals.ts), as the
 * README and `nightly --help` say, not 3; 3 is a run that could not complete (and `compare` of the results
 * of an interrupted run).
 */
import { describe, expect, it } from 'vitest';
import { signalExitCode } from '../../../src/machine/os/signals.js';
import { runMain } from '../../helpers/main-in-process.js';

describe.each(['run', 'compare', 'bisect', 'nightly'])('pgperf %s --help', (command) => {
  it('says a signal exits 130 (SIGINT) or 143 (SIGTERM), and never that an interrupted run exits 3', async () => {
    const { stdout } = await runMain([command, '--help']);
    const codes = stdout.slice(stdout.indexOf('Exit codes:'));
    expect(codes).toMatch(
      /^ {2}130, 143 {2}stopped by Ctrl-C \(SIGINT\) or SIGTERM; what was measured is kept/m,
    );
    expect(codes).not.toMatch(/^ {2}3 .*\(interrupted/m);
    expect([signalExitCode('SIGINT'), signalExitCode('SIGTERM')]).toEqual([130, 143]);
  });
});
