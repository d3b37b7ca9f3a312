/** The workloads shipped with pgperf (workloads/*.yml), looked up by bare name. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';

/** Names of the shipped workloads (file names without .yml), sorted. */
export function shippedWorkloadNames(workloadsDir: string): string[] {
  try {
    return readdirSync(workloadsDir)
      .filter((f) => f.endsWith('.yml'))
      .map((f) => f.slice(0, -4))
      .sort();
  } catch {
    return [];
  }
}

/**
 * The file of a shipped workload; an unknown name is refused listing the shipped ones. `what` names
 * the source in the message (e.g. "input 'workloads'").
 */
export function shippedWorkloadFile(name: string, workloadsDir: string, what: string): string {
  const file = path.join(workloadsDir, `${name}.yml`);
  if (existsSync(file)) return file;
  throw new UserError(
    `${what}: no shipped workload is named '${name}' (shipped: ${shippedWorkloadNames(workloadsDir).join(', ')}); ` +
      'give one of those names or the path of a workload file',
  );
}
