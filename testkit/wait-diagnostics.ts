/**
 * A timed run's sampled wait events for tests and simulations: `observations` backend observations, of
 * which `waiting` in LWLock:BufferContent (a server wait) and the rest on the CPU.
 */
import type { RunDiagnostics } from '../src/core/results/diagnostics.js';

export function waitDiagnostics(observations: number, waiting: number): RunDiagnostics {
  return {
    version: 1,
    serverVersionNum: 180000,
    hz: 10,
    durationS: observations / 20,
    samples: observations / 2,
    missedTicks: 0,
    observations,
    waitEvents: [
      { event: 'CPU:Running', count: observations - waiting, share: 1 - waiting / observations },
      { event: 'LWLock:BufferContent', count: waiting, share: waiting / observations },
    ],
    lockWaits: [],
    transactions: 1000,
    counters: {},
    unavailable: [],
  };
}
