/**
 * The evidence a comparison gathers by default (docs/decision.md, "Answers at their cost"): before the timed
 * rounds, instructions per transaction at 1 client for every workload that can be counted (pgbench without
 * pipeline), and the statements' plans taken on those same counting servers. A patch that adds CPU work to
 * every query fails on its counts in one counted round whatever the TPS noise; one that changes no work,
 * no wait and no plan passes on that steady evidence (steady-evidence.ts). Off with `--no-instructions`
 * (input `instructions: false`) and `--no-plans` (input `plans: false`); `true` asks for them explicitly,
 * and then a workload that cannot be counted is refused instead of skipped.
 *
 * Not for one arm, an A/A run of one install (nothing differs to explain), or the parts of a stored-baseline
 * run (base was not measured here); a machine without a counter says so once and measures on.
 */
import { errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { resolveInstructions } from '../../drivers/common/workload-fields.js';
import type { Workload } from '../../drivers/workload.js';
import type { InstructionsRecord } from '../../core/results/instructions.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import {
  chooseCounter,
  probeCounters,
  type CounterChoice,
  type CounterProbe,
} from '../../postgres/instructions/counter.js';
import { countsTransactions } from './counted-runs.js';

/** What is gathered unless switched off: each on ('auto') or off. */
export interface EvidenceDefaults {
  instructions: boolean;
  plans: boolean;
}

/** A workload whose instructions can be counted: fixed transaction counts (pgbench), no pipeline. */
export function countable(w: Workload): boolean {
  return countsTransactions(w) && !(w.tool === 'pgbench' && w.pipeline !== undefined);
}

/** The workloads that would be counted by default (countable, not counting on their own already). */
export function countedByDefault(workloads: readonly Workload[]): Workload[] {
  return workloads.filter((w) => w.instructions === undefined && countable(w));
}

/**
 * The counter probe for the default counts, asked before anything is built; undefined (said once) when
 * they do not apply (`defaults` absent: the caller's rule), nothing would be counted by default, or this
 * machine has no counter.
 */
export async function probeDefaultCounter(
  workloads: readonly Workload[],
  defaults: EvidenceDefaults | undefined,
  choice: CounterChoice | undefined,
  deps: { runner: ProcessRunner; logger: Logger; signal?: AbortSignal | undefined },
  known?: CounterProbe,
): Promise<CounterProbe | undefined> {
  if (!defaults?.instructions || countedByDefault(workloads).length === 0) return undefined;
  const probe = known ?? (await probeCounters(deps.runner, deps.signal));
  try {
    chooseCounter(choice ?? { counter: 'auto' }, probe, 'instructions');
    return probe;
  } catch (e) {
    deps.logger.warn(
      `instruction counts: not taken by default: ${errorMessage(e)} (install valgrind, or give --no-instructions to silence this)`,
    );
    return undefined;
  }
}

/** The workloads with the default counts switched on (copies); the caller decides that they apply. */
export function withDefaultCounts(workloads: readonly Workload[]): Workload[] {
  const counted = new Set(countedByDefault(workloads));
  return workloads.map((w) => (counted.has(w) ? { ...w, instructions: resolveInstructions(true) } : w));
}

/** The workloads counted by default that were not counted: named in the results' notes. */
export function uncountableNote(workloads: readonly Workload[]): string | undefined {
  const skipped = workloads.filter((w) => w.instructions === undefined && !countable(w));
  if (skipped.length === 0) return undefined;
  return `instructions not counted for ${skipped.map((w) => `${w.name} (${w.tool === 'pgbench' ? 'pipeline' : `tool ${w.tool}`})`).join(', ')}: its timed rounds decide`;
}

/**
 * The record without the samples of the workloads counted by default whose counting failed (too slow, a
 * server that would not start under the counter): evidence offered, not asked for, so their timed rounds
 * decide alone instead of a count with no data holding the answer pending. The failure stays recorded,
 * marked `offered`; a head that alone failed (recorded with its arm) loses only its own count cell.
 */
export function withoutFailedDefaults(
  record: InstructionsRecord,
  countedByDefault: readonly Workload[],
): InstructionsRecord {
  const offered = (name: string) => countedByDefault.some((w) => w.name === name);
  if (!record.failures.some((f) => offered(f.workload))) return record;
  const failed = new Set(
    record.failures.filter((f) => f.arm === undefined && offered(f.workload)).map((f) => f.workload),
  );
  return {
    ...record,
    samples: record.samples.filter((s) => !failed.has(s.workload)),
    failures: record.failures.map((f) => (offered(f.workload) ? { ...f, offered: true } : f)),
  };
}
