/**
 * The decision of a results document and of a consolidation: the comparison, the gate policy (the
 * adapter's fail-on and the workloads' own) and whether the measurement completed, put through the one
 * decide(). Every adapter and mode calls these, so none assembles a gate of its own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { decide, type Completeness, type Decision } from '../../../core/compare/decision/decision.js';
import { flowDecision, type GateDecision } from '../../../core/compare/decision/flow-decision.js';
import { gatePolicyOf, type FailOn, type GatePolicy } from '../../../core/compare/decision/policy.js';
import type { RunComparison } from '../../../core/compare/comparison-types.js';
import type { RunResult } from '../../../core/results/result-types.js';

/** `accepted`: the regressions maintainers accepted (`/pgperf accept`) and the head commit decided on. */
export function decideRun(
  result: RunResult,
  comparison: RunComparison,
  failOn?: FailOn,
  accepted?: GatePolicy['accepted'],
): Decision {
  const policy = { ...gatePolicyOf(result.workloads, failOn), ...(accepted ? { accepted } : {}) };
  const decision = decide(comparison, policy, completenessOf(result));
  // decision.json says what the answer cost, as every surface does.
  return result.cost ? { ...decision, cost: result.cost } : decision;
}

/** "the run was interrupted (SIGINT)" when the document is not complete. */
export function completenessOf(result: Pick<RunResult, 'status' | 'stopReason'>): Completeness {
  if (result.status === 'complete') return { complete: true };
  const why = result.stopReason ? ` (${result.stopReason})` : '';
  const what =
    result.status === 'running'
      ? 'the run had not finished'
      : result.status === 'interrupted'
        ? 'the run was interrupted'
        : result.status === 'failed'
          ? 'the run failed'
          : `the run's status is '${String(result.status)}'`;
  return { complete: false, why: `${what}${why}` };
}

/**
 * A shard's decision (one matrix job of a fleet): its verdict is partial, the consolidation decides, so a
 * complete shard is pending (never green on its own) and one that did not complete could not (3); fail-on
 * never passes it, as everything.
 */
export function decideShard(result: RunResult, comparison: RunComparison, failOn: FailOn): GateDecision {
  const shard = result.plan.shard;
  const name = shard ? `shard ${shard.index}/${shard.count}` : 'the shard';
  const complete = completenessOf(result);
  return flowDecision({
    flow: 'shard',
    verdict: comparison.verdict,
    failOn,
    ...(complete.complete
      ? {}
      : { incomplete: `${name}: ${complete.why ?? 'not complete'}; the consolidation will name it` }),
    pending: true,
    lead: `${name} measured`,
    detail: `its verdict (${comparison.verdict}) is partial: mode consolidate decides over all shards`,
    deciding: result.plan.cells.map((c) => `${c.workload}@${c.clients}`),
  });
}

/** decision.json, beside results.json: what the gate said, for scripts (`jq .outcome`). */
export const DECISION_FILE = 'decision.json';

export async function writeDecision(dir: string, decision: GateDecision): Promise<string> {
  const file = path.join(dir, DECISION_FILE);
  await mkdir(dir, { recursive: true });
  await writeFile(file, `${JSON.stringify(decision, null, 2)}\n`);
  return file;
}
