/**
 * The backends' private memory during one measured run (src/postgres/memory/backend-memory-sampler.ts):
 * started before the client, stopped after it. A sampler that cannot start leaves a record that says why
 * ("not recorded: ..."), never a failed run. The largest backend's memory contexts are asked for once, near
 * the end of the run (contextsAtMs), while its client still runs.
 */
import { backendMemoryRecord, type BackendMemoryRecord } from '../../core/results/memory.js';
import { errorMessage } from '../../core/util/errors.js';
import type { Connection } from '../../postgres/cluster/cluster.js';
import {
  DEFAULT_MEMORY_INTERVAL_MS,
  startMemorySampler,
  type MemorySamplerOptions,
} from '../../postgres/memory/backend-memory-sampler.js';

/**
 * When to ask for the largest backend's memory contexts, ms after the sampler starts: 2 s before the planned
 * end (the backends then hold what the run made them hold, and the dump has time to arrive before the client
 * disconnects), and not before half the run.
 */
export function contextsAtMs(durationS: number): number {
  const ms = durationS * 1000;
  return Math.max(ms / 2, ms - 2000);
}

export interface RunMemory {
  stop(): Promise<BackendMemoryRecord>;
}

export async function startRunMemory(
  connection: Connection,
  options: MemorySamplerOptions = {},
): Promise<RunMemory> {
  try {
    return await startMemorySampler(connection, options);
  } catch (e) {
    const record = backendMemoryRecord(
      new Map(),
      options.intervalMs ?? DEFAULT_MEMORY_INTERVAL_MS,
      0,
      `the memory sampler could not connect: ${errorMessage(e)}`,
    );
    return { stop: () => Promise.resolve(record) };
  }
}
