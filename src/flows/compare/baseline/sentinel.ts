/**
 * The sentinel, against machine drift: a stored baseline is only as good as the machine is unchanged, so
 * when the baseline's install still exists it is re-measured now for a few rounds, interleaved with head,
 * and compared (unpaired) with its stored samples. A move beyond the threshold refuses the comparison or
 * makes it inconclusive (--on-drift). Head's rounds measured here count for the comparison.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { compareRun } from '../../../core/compare/analysis/compare-run.js';
import type { CellComparison } from '../../../core/compare/comparison-types.js';
import type { ArmInfo, RunResult, SentinelOutcome } from '../../../core/results/result-types.js';
import type { ArmSpec } from '../../../run/run-loop.js';
import { analysisOf } from '../../../core/compare/analysis/recorded-analysis.js';
import { runPipeline, type PipelineDeps, type PipelineRequest } from '../pipeline/pipeline.js';

/** What the sentinel measured, or why it did not run (said as a warning, and recorded as its reason). */
export type SentinelRun = { doc: RunResult } | { skipped: string };

/**
 * Measures the stored base install now, interleaved with head, for `rounds` rounds under <runDir>/sentinel;
 * skipped (with the reason) when the rounds are 0 or the install is gone. `clientBinDir` is the one client
 * that drives head here and alone: the run loop's default would be the first arm's, base's.
 */
export async function runSentinel(
  req: PipelineRequest,
  head: ArmSpec,
  storedBase: ArmInfo,
  rounds: number,
  clientBinDir: string,
  deps: PipelineDeps,
): Promise<SentinelRun> {
  const installed = await binDirExists(storedBase.binDir);
  if (rounds <= 0) return { skipped: 'no sentinel: --sentinel-rounds is 0' };
  if (!installed) return { skipped: `no sentinel: the baseline install is gone (${storedBase.binDir})` };
  deps.logger.info(`sentinel: base ${storedBase.binDir} and head interleaved for ${rounds} round(s)`);
  const sentinel = await runPipeline(
    {
      ...req,
      rounds,
      partOfRun: true,
      clientBinDir,
      arms: {
        kind: 'installed',
        arms: [{ label: 'base', binDir: storedBase.binDir, settings: storedBase.settingOverrides }, head],
      },
      runDir: path.join(req.runDir, 'sentinel'),
    },
    deps,
  );
  return { doc: sentinel.result };
}

/** The sentinel's outcome as results.json records it: judged when it measured, else skipped with why. */
export function sentinelOutcome(
  run: SentinelRun,
  stored: RunResult,
  storedBase: ArmInfo,
  onDrift: SentinelOutcome['onDrift'],
): SentinelOutcome {
  if ('doc' in run) return judgeSentinel(stored, storedBase, run.doc, onDrift);
  return { status: 'skipped', reason: run.skipped, onDrift };
}

/**
 * The sentinel's verdict: the base install measured now against its stored samples, unpaired, with the
 * run's α, threshold and metric. Drifted when a cell moved significantly beyond the threshold or its 95%
 * CI lies entirely beyond ±threshold.
 */
export function judgeSentinel(
  stored: RunResult,
  storedBase: ArmInfo,
  sentinel: RunResult,
  onDrift: SentinelOutcome['onDrift'],
): SentinelOutcome {
  const settings = analysisOf(sentinel);
  const doc: RunResult = {
    ...sentinel,
    arms: [
      { ...storedBase, label: 'stored' },
      { ...sentinel.arms[0]!, label: 'now' },
    ],
    samples: [
      ...stored.samples.filter((s) => s.arm === storedBase.label).map((s) => ({ ...s, arm: 'stored' })),
      ...sentinel.samples.filter((s) => s.arm === 'base').map((s) => ({ ...s, arm: 'now' })),
    ],
    warnings: [],
  };
  const comparison = compareRun(doc, { ...settings, test: 'unpaired' });
  const cells = comparison.comparisons[0]?.cells ?? [];
  const moved = cells.filter((c) => drifted(c));
  const what = `${settings.metric}, threshold ${settings.thresholdPct}%`;
  if (moved.length === 0) {
    const tested = cells.filter((c) => c.deltaPct !== null).length;
    return {
      status: 'steady',
      reason: `sentinel: the base install re-measured now did not move beyond the threshold in ${tested} cell(s) (${what})`,
      onDrift,
    };
  }
  const list = moved
    .map((c) => `${c.id} ${c.deltaPct! >= 0 ? '+' : ''}${c.deltaPct!.toFixed(1)}%`)
    .join(', ');
  const effect = onDrift === 'refuse' ? 'the comparison is refused' : 'the comparison is inconclusive';
  return {
    status: 'drifted',
    reason: `machine drift: the base install re-measured now differs from its stored samples beyond the threshold (${list}; ${what}): ${effect}`,
    onDrift,
  };
}

function drifted(c: CellComparison): boolean {
  if (c.verdict === 'regression' || c.verdict === 'improvement') return true;
  const ci = c.ci95;
  const t = c.thresholdPct;
  return ci !== null && (ci.lowerPct > t || ci.upperPct < -t);
}

async function binDirExists(binDir: string): Promise<boolean> {
  try {
    return (await stat(path.join(binDir, 'postgres'))).isFile();
  } catch {
    return false;
  }
}
