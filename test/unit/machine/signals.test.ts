/**
 * The signal handlers every adapter installs, driven through an EventEmitter standing in for `process`:
 * the first signal stops gracefully, a second one forces the exit through the cleanups; one signal always
 * ends pgperf (a graceful stop that hangs is forced after its grace), and a forced exit whose cleanup hangs
 * exits anyway. The cleanup registry runs the tasks registered `first` (the results document) before the
 * others (the servers), each group newest first.
 */
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
  it('a signal after a stopped command let go of its handlers is ignored, never left to the default action', () => {
    const stopped = new EventEmitter();
    const options = { logger: memoryLogger(), onFirst: () => {}, exit: () => {}, gracefulStopMs: 60_000 };
    installSignalHandlers({ ...options, source: stopped })();
    // Never stopped: the handlers go, and Ctrl-C between commands ends the process as usual.
    expect(stopped.listenerCount('SIGINT')).toBe(0);
    const dispose = installSignalHandlers({ ...options, source: stopped });
    stopped.emit('SIGINT');
    dispose();
    // Stopped: the command is ending with 130; a late second Ctrl-C finds a listener that does nothing.
    expect(stopped.listenerCount('SIGINT')).toBe(1);
    expect(stopped.listenerCount('SIGTERM')).toBe(1);
    expect(() => stopped.emit('SIGINT')).not.toThrow();
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
