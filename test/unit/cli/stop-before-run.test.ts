/**
 * SIGINT works at every stage of `pgperf run`, reading and checking included (issue #40 item 4): the
 * handlers are installed before the workloads are read, and a signal that comes while they are read ends
 * the command with 130 before anything starts, its handlers removed. The signal is sent from inside the
 * workload loader (the real one, wrapped), so it lands exactly while the files are read.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runMain } from '../../helpers/main-in-process.js';

vi.mock('../../../src/drivers/load-workload.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/drivers/load-workload.js')>();
  return {
    ...actual,
    loadWorkloads: vi.fn(async (...args: Parameters<typeof actual.loadWorkloads>) => {
      // Ctrl-C while the first file is read.
      process.emit('SIGINT', 'SIGINT');
      return actual.loadWorkloads(...args);
    }),
  };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'stop-before-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a SIGINT while the workloads are read: exit 130, nothing started, the handlers removed', async () => {
  const listeners = process.listenerCount('SIGINT');
  const out = path.join(dir, 'out');
  // Arms that cannot run: should the signal be missed, the run fails at its bin dirs, not with 130.
  const ran = await runMain([
    'run',
    '--arm',
    `a=${path.join(dir, 'none')}`,
    '--arm',
    `b=${path.join(dir, 'none')}`,
    '--out',
    out,
    '--workload',
    'select-only',
    'select-only',
  ]);
  expect(ran.stderr).toContain('SIGINT: stopping');
  expect(ran.stderr).toContain('pgperf: SIGINT: stopped before the run began; nothing was started');
  expect(ran.code).toBe(130);
  expect(await readdir(dir)).toEqual([]);
  expect(process.listenerCount('SIGINT')).toBe(listeners);
});
