/** runBenchmark requests for integration tests: the installed PostgreSQL as every arm, results in a directory. */
import path from 'node:path';
import type { Workload } from '../../src/drivers/workload.js';
import { resolveAnalysis } from '../../src/core/compare/analysis/recorded-analysis.js';
import type { RunRequest } from '../../src/run/run-loop.js';
import { fileSink } from '../../src/run/sink.js';

/**
 * base and head on the one install at `binDir` with no settings, `workloads` in random order, results in
 * dir/results.json, the clusters under `dir`, default analysis, no data checksums; `extra` overrides any of it.
 */
export function sameInstallRequest(
  binDir: string,
  dir: string,
  workloads: Workload[],
  extra: Partial<RunRequest> = {},
): RunRequest {
  return {
    arms: [
      { label: 'base', binDir, settings: {} },
      { label: 'head', binDir, settings: {} },
    ],
    workloads,
    order: 'random',
    sink: fileSink(path.join(dir, 'results.json')),
    analysis: resolveAnalysis(),
    dataChecksums: false,
    tmpDir: dir,
    ...extra,
  };
}
