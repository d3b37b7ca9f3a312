import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { readResults } from '../../store/read-results.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { ResultStore } from '../../store/store.js';
import type { HistoryRun } from '../../core/history/series.js';
import { withCurrentDefinitions } from './current-definitions.js';

/**
 * The runs of `pgperf history --results`: each argument is a results file, or a directory. A directory
 * store (one with a `runs/` subdirectory) contributes `runs/*.json`; any other directory contributes every
 * `results.json` in its tree. `loadStoredRuns` reads them from a results store instead.
 */
export async function loadRuns(inputs: readonly string[]): Promise<HistoryRun[]> {
  if (inputs.length === 0) throw new UserError('--results needs at least one results file or directory');
  const files: string[] = [];
  for (const input of inputs) files.push(...(await resultFiles(input)));
  if (files.length === 0) {
    throw new UserError(
      `no results found in ${inputs.join(', ')}; expected results.json files (from pgperf run) or a directory store`,
    );
  }
  const unique = [...new Set(files.map((f) => path.resolve(f)))].sort();
  return Promise.all(unique.map(async (f) => withCurrentDefinitions((await readResults(f)) as HistoryRun)));
}

async function resultFiles(input: string): Promise<string[]> {
  let info;
  try {
    info = await stat(input);
  } catch (e) {
    throw new UserError(`--results ${input}: ${errorMessage(e)}`);
  }
  if (!info.isDirectory()) return [input];
  const runsDir = path.join(input, 'runs');
  if (await isDirectory(runsDir)) {
    return (await readdir(runsDir))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .map((n) => path.join(runsDir, n));
  }
  const entries = await readdir(input, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name === 'results.json')
    .map((e) => path.join(e.parentPath, e.name));
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Every complete run of a results store (optionally of some workloads), oldest first. */
export async function loadStoredRuns(
  store: ResultStore,
  workloads?: readonly string[],
): Promise<HistoryRun[]> {
  const listed = (await store.list()).filter(
    (r) => r.status === 'complete' && (!workloads?.length || r.workloads.some((w) => workloads.includes(w))),
  );
  const runs: HistoryRun[] = [];
  for (const entry of listed.reverse()) {
    runs.push(withCurrentDefinitions((await store.load(entry.id)) as HistoryRun));
  }
  return runs;
}
