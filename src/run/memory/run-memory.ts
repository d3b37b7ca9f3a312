/**
 * The backends' private memory during one measured run (src/postgres/memory/backend-memory-sampler.ts):
 * started before the client, stopped after it. A sampler that cannot start leaves a record that says why
 * ("not recorded: ..."), never a failed run.
 */
import { backendMemoryRecord, type BackendMemoryRecord } from '../../core/results/memory.js';
import { errorMessage } from '../../core/util/errors.js';
import type { Connection } from '../../postgres/cluster/cluster.js';
import {
  DEFAULT_MEMORY_INTERVAL_MS,
  startMemorySampler,
  type MemorySamplerOptions,
} from '../../postgres/memory/backend-memory-sampler.js';

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
