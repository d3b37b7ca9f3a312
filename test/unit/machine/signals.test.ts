/**
 * The signal handlers every adapter installs, driven through an EventEmitter standing in for `process`:
 * the first signal stops gracefully, a second one forces the exit through the cleanups; one signal always
 * ends pgperf (a graceful stop that hangs is forced after its grace), and a forced exit whose cleanup hangs
 * exits anyway. The cleanup registry runs the tasks registered `first` (the results document) before the
 * others (the servers), each group newest first.
 */
import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { installSignalHandlers } from '../../../src/machine/os/signals.js';
import { onCleanup, pendingCleanups, runCleanups } from '../../../src/machine/os/cleanup.js';
import { memoryLogger } from '../../../src/core/util/logger.js';

function harness(cleanup: () => Promise<void>, times: { gracefulStopMs?: number; forcedCleanupMs?: number }) {
  const source = new EventEmitter();
  const logger = memoryLogger();
  const events: string[] = [];
  const exited = new Promise<number>((resolve) => {
    const dispose = installSignalHandlers({
      logger,
      source,
      onFirst: (signal) => events.push(`first ${signal}`),
      cleanup: async () => {
        events.push('cleanup');
        await cleanup();
      },
      exit: (code) => {
        events.push(`exit ${code}`);
        dispose();
        resolve(code);
      },
      ...times,
    });
  });
  return { source, logger, events, exited };
}

describe('installSignalHandlers', () => {
  it.each([
    [
      'after a stopped command let go of its handlers, a late Ctrl-C is ignored: the exit code stands',
      true,
      7,
    ],
    ['with no command ever stopped and none listening, Ctrl-C ends the process as by default', false, null],
  ])('the late-signal guard of the entry point: %s', (_what, stopFirst, code) => {
    const signals = new URL('../../../src/machine/os/signals.ts', import.meta.url).pathname;
    const logger = new URL('../../../src/core/util/logger.ts', import.meta.url).pathname;
    const script = `
      const { installLateSignalGuard, installSignalHandlers } = await import(${JSON.stringify(signals)});
      const { memoryLogger } = await import(${JSON.stringify(logger)});
      installLateSignalGuard();
      if (${stopFirst}) {
        const dispose = installSignalHandlers({ logger: memoryLogger(), onFirst: () => {}, exit: () => {} });
        process.kill(process.pid, 'SIGINT');
        await new Promise((r) => setTimeout(r, 100));
        dispose();
      }
      process.kill(process.pid, 'SIGINT');
      await new Promise((r) => setTimeout(r, 300));
      process.exit(7);`;
    const ran = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: ran.status, signal: ran.signal }, ran.stderr).toEqual(
      code === null ? { status: null, signal: 'SIGINT' } : { status: code, signal: null },
    );
  });

  it('a second signal forces the exit through the cleanup, with 128 + its number', async () => {
    const h = harness(async () => {}, { gracefulStopMs: 60_000 });
    h.source.emit('SIGINT');
    expect(h.events).toEqual(['first SIGINT']);
    h.source.emit('SIGTERM');
    expect(await h.exited).toBe(143);
    expect(h.events).toEqual(['first SIGINT', 'cleanup', 'exit 143']);
  });

  it('one signal always ends pgperf: a graceful stop still going after its grace is forced', async () => {
    const h = harness(async () => {}, { gracefulStopMs: 50 });
    h.source.emit('SIGTERM');
    expect(await h.exited).toBe(143);
    expect(h.events).toEqual(['first SIGTERM', 'cleanup', 'exit 143']);
    expect(h.logger.lines.join('\n')).toMatch(/SIGTERM: still stopping after 0\.05 s; forcing the exit/);
  });

  it('a forced exit whose cleanup never ends exits after its deadline, once', async () => {
    const h = harness(() => new Promise<void>(() => {}), { forcedCleanupMs: 50 });
    h.source.emit('SIGINT');
    h.source.emit('SIGINT');
    h.source.emit('SIGINT');
    expect(await h.exited).toBe(130);
    await sleep(100);
    expect(h.events).toEqual(['first SIGINT', 'cleanup', 'exit 130']);
    expect(h.logger.lines.join('\n')).toMatch(/the cleanup still runs after 0\.05 s: exiting without it/);
  });

  it('an internal error whose report cannot be written (output closed) is reported once, then exits', async () => {
    const h = harness(() => sleep(50), {});
    const logged = h.logger.error;
    let reports = 0;
    // As with a closed stdout: every write of the report fails later with an uncaught EPIPE of its own.
    h.logger.error = (m: string) => {
      reports++;
      logged(m);
      setImmediate(() => h.source.emit('uncaughtException', new Error('write EPIPE')));
    };
    h.source.emit('uncaughtException', new Error('write EPIPE'));
    expect(await h.exited).toBe(70);
    expect(reports).toBe(1);
  });

  it('removing the handlers clears the grace: a run that ended on its own is not forced later', async () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const dispose = installSignalHandlers({
      logger: memoryLogger(),
      source,
      onFirst: () => {},
      cleanup: async () => {},
      exit: (code) => exits.push(code),
      gracefulStopMs: 30,
    });
    source.emit('SIGINT');
    dispose();
    await sleep(80);
    expect(exits).toEqual([]);
  });
});

describe('runCleanups', () => {
  it('runs the tasks registered first before the others, each group newest first', async () => {
    const ran: string[] = [];
    const task = (name: string) => async () => void ran.push(name);
    onCleanup(task('server a'));
    onCleanup(task('record'), { first: true });
    onCleanup(task('server b'));
    const gone = onCleanup(task('released normally'));
    gone();
    await runCleanups();
    expect(ran).toEqual(['record', 'server b', 'server a']);
    expect(pendingCleanups()).toBe(0);
  });
});
