/**
 * The hash of the text of each workload's script files, recorded with a run (`workloadScripts`): a workload
 * names its files, and one edited under its name measures something else, which a history must see
 * (core/results/workload-definition.ts). Read when the run is planned; a file pgperf cannot read here (the
 * client may read it as another user) is left out rather than guessed: that workload records no hash.
 */
import { readFile } from 'node:fs/promises';
import { scriptTextsHash } from '../core/results/workload-definition.js';
import { scriptFiles } from './registry.js';
import type { Workload } from './workload.js';

/** Per workload with script files, the hash of their texts in order; workloads without files are absent. */
export async function workloadScriptHashes(workloads: readonly Workload[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const w of workloads) {
    const files = scriptFiles(w);
    if (files.length === 0) continue;
    try {
      out[w.name] = scriptTextsHash(await Promise.all(files.map((f) => readFile(f, 'utf8'))));
    } catch {
      // Not readable by pgperf itself: no hash, and a history then cannot tell an edit of it (said in docs/history.md).
    }
  }
  return out;
}
