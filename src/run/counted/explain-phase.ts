/**
 * Explain the change: after the rounds (and the confirmation block), each head arm whose throughput
 * changed in a pgbench workload (a regression the block confirmed, or one it had no block for, or an
 * improvement) gets a differential profile of that workload against base: instructions per function per
 * transaction at 1 client under cachegrind (instruction-phase.ts, one repetition), the full table in
 * <runDir>/explain/ and the largest movers in results.json (`explanation`) and the comment. A workload the
 * instruction mode already counted has its profile there and is not measured again. The profile shows CPU
 * work per transaction; a change that only shows at high client counts (lock contention, I/O) may have no
 * mover here, and the report says so. Failures are recorded, never fatal: the verdict is already made.
 */
import {
  DEFAULT_INSTRUCTION_SETTINGS,
  emptyInstructionsRecord,
  type ExplainTarget,
  type ExplanationRecord,
  type InstructionsRecord,
} from '../../core/results/instructions.js';
import type { RunComparison } from '../../core/compare/comparison-types.js';
import type { RunResult } from '../../core/results/result-types.js';
import { errorMessage } from '../../core/util/errors.js';
import type { Workload } from '../../drivers/workload.js';
import { probeCounters } from '../../postgres/instructions/counter.js';
import { countsTransactions } from './counted-runs.js';
import {
  countInstructions,
  type InstructionPhaseDeps,
  type InstructionPhaseRequest,
} from './instruction-phase.js';

/** Head arms profiled per run at most: each costs a server under cachegrind. */
const MAX_TARGETS = 4;

/**
 * The (head, workload) pairs to profile: every stable cell of the comparison's gated throughput whose
 * verdict is an improvement, or a regression that is confirmed or had no confirmation block; only workloads
 * whose driver runs counted runs (pgbench -t at 1 client), without a pipeline, and not those whose profile
 * the instruction mode already took.
 */
export function explainTargets(
  comparison: RunComparison,
  workloads: readonly Workload[],
  counted?: InstructionsRecord,
): ExplainTarget[] {
  const targets: ExplainTarget[] = [];
  for (const arm of comparison.comparisons) {
    for (const cell of arm.cells) {
      const changed =
        cell.verdict === 'improvement' ||
        (cell.verdict === 'regression' && (cell.confirmation?.confirmed ?? true));
      if (!changed || cell.unstable !== undefined) continue;
      const w = workloads.find((x) => x.name === cell.workload);
      if (!w || !countsTransactions(w) || (w.tool === 'pgbench' && w.pipeline !== undefined)) continue;
      if (counted?.profiles.some((p) => p.workload === w.name && p.head === arm.head)) continue;
      const known = targets.find((t) => t.head === arm.head && t.workload === w.name);
      if (known) known.cells.push(cell.id);
      else targets.push({ head: arm.head, workload: w.name, cells: [cell.id] });
    }
  }
  return targets.slice(0, MAX_TARGETS);
}

/**
 * Profiles the targets (arms[0] is base); undefined when there are none. Each workload is measured once
 * with base and the heads that changed in it.
 */
export async function runExplainPhase(
  targets: readonly ExplainTarget[],
  req: InstructionPhaseRequest,
  deps: InstructionPhaseDeps,
): Promise<ExplanationRecord | undefined> {
  if (targets.length === 0) return undefined;
  const base = req.arms[0]!;
  const workloads = [...new Set(targets.map((t) => t.workload))];
  const record: ExplanationRecord = { ...emptyInstructionsRecord(), targets: [...targets] };
  // Once for every workload profiled.
  const probed = { ...deps, probe: deps.probe ?? (await probeCounters(deps.runner, deps.signal)) };
  const settings = { ...DEFAULT_INSTRUCTION_SETTINGS, repetitions: 1 };
  for (const name of workloads) {
    const w = req.workloads.find((x) => x.name === name)!;
    const heads = targets.filter((t) => t.workload === name).map((t) => t.head);
    const arms = [base, ...req.arms.filter((a) => heads.includes(a.label))];
    deps.logger.info(
      `explain: profiling ${name} (${arms.map((a) => a.label).join(' vs ')}) under cachegrind at 1 client`,
    );
    try {
      // The profile needs cachegrind's per-function counts, whatever counted the instruction mode.
      const request = { ...req, arms, instructionCounter: { counter: 'cachegrind' as const } };
      const counted = await countInstructions([{ workload: w, settings }], request, probed, {
        what: 'explain',
        profileDir: 'explain',
      });
      for (const key of ['samples', 'profiles', 'failures', 'notes'] as const) {
        (record[key] as unknown[]).push(...counted[key]);
      }
      record.settings[name] = settings;
      record.wallS += counted.wallS;
    } catch (e) {
      if (deps.signal?.aborted) throw e;
      record.failures.push({ workload: name, reason: errorMessage(e) });
      deps.logger.warn(`explain ${name}: no profile: ${errorMessage(e)}`);
    }
  }
  return record;
}

/** The document with the explanation, when there is one. */
export function withExplanation(result: RunResult, record: ExplanationRecord | undefined): RunResult {
  return record ? { ...result, explanation: record } : result;
}
