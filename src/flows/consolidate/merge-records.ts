/**
 * The records of the phases that run before the rounds (instruction counts, plans), merged over the shards
 * of one machine class: each shard took them for the workloads of its own cells, so the consolidated
 * document holds every workload's, each from the first shard that has it (a workload whose cells two
 * shards split was taken by both, alike). Without this the consolidation kept the first shard's alone.
 */
import type { InstructionsRecord } from '../../core/results/instructions.js';
import type { PlansRecord } from '../../core/results/plans.js';
import type { RunResult } from '../../core/results/result-types.js';

/** `instructions` and `plans` of the merged document: none when no shard has them. */
export function mergedRecords(docs: readonly RunResult[]): Pick<RunResult, 'instructions' | 'plans'> {
  const instructions = docs.flatMap((d) => (d.instructions ? [d.instructions] : []));
  const plans = docs.flatMap((d) => (d.plans ? [d.plans] : []));
  return {
    ...(instructions.length > 0 ? { instructions: mergeInstructions(instructions) } : {}),
    ...(plans.length > 0 ? { plans: mergePlans(plans) } : {}),
  };
}

function mergeInstructions(records: readonly InstructionsRecord[]): InstructionsRecord {
  const { own, owns } = firstOwners(records, (r) => [
    ...Object.keys(r.settings),
    ...r.samples.map((s) => s.workload),
    ...r.failures.map((f) => f.workload),
  ]);
  return {
    counter: records[0]!.counter,
    settings: Object.fromEntries(
      records.flatMap((r) => Object.entries(r.settings).filter(([w]) => owns(r, w))),
    ),
    wallS: sum(records.map((r) => r.wallS)),
    samples: own((r) => r.samples),
    profiles: own((r) => r.profiles),
    failures: own((r) => r.failures),
    notes: unique(records.flatMap((r) => r.notes)),
  };
}

function mergePlans(records: readonly PlansRecord[]): PlansRecord {
  const { own } = firstOwners(records, (r) => [
    ...r.statements.map((s) => s.workload),
    ...r.failures.map((f) => f.workload),
  ]);
  return {
    arms: records[0]!.arms,
    wallS: sum(records.map((r) => r.wallS)),
    statements: own((r) => r.statements),
    plans: own((r) => r.plans),
    stats: own((r) => r.stats),
    failures: own((r) => r.failures),
    notes: unique(records.flatMap((r) => r.notes)),
  };
}

/**
 * Each workload's record, the first that names it: `owns(r, w)` says whether `r` is workload w's, and
 * `own(pick)` gathers the entries of every record that are of its own workloads.
 */
function firstOwners<R>(records: readonly R[], workloads: (r: R) => string[]) {
  const owner = new Map<string, R>();
  for (const r of records) for (const w of workloads(r)) if (!owner.has(w)) owner.set(w, r);
  const owns = (r: R, workload: string) => owner.get(workload) === r;
  const own = <T extends { workload: string }>(pick: (r: R) => readonly T[]) =>
    records.flatMap((r) => pick(r).filter((x) => owns(r, x.workload)));
  return { own, owns };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
