/**
 * Steady evidence in the decision. Throughput on a shared runner is noisy, so an unchanged patch can stay
 * "inconclusive" for many rounds; the CPU work per transaction (instructions, counted near
 * deterministically by the counted runs), the waits per transaction (sampled in every timed run) and the
 * statements' plans are not. When a workload's counts say "no change", its plans did not change, the
 * cell's waits did not move (wait-evidence.ts) and neither did its memory (memory-evidence.ts), a cell whose timed metric shows no sign of a regression (not
 * significant, its estimate inside the threshold on the worse side, its interval not wholly beyond it) is
 * decided "no change" on that evidence, with what its interval could not rule out said in its reason,
 * instead of waiting for the interval to shrink.
 *
 * This is policy (`steady-pass`, docs/decision.md): by default at every client count. A patch can change
 * throughput without changing work (a lock held longer, a sleep such as commit_delay), and then it shows in
 * the waits: above 1 client steady evidence needs the waits measured (diagnostics on) and unchanged; at 1
 * client, where throughput is the reciprocal of one backend's work and waits, the counts alone suffice when
 * no waits were sampled.
 */
import { judgeInstructionCell, type InstructionJudgement } from './instruction-rule.js';
import { formatPct, formatPctInterval } from '../format.js';
import { METRICS } from '../../results/metrics.js';
import type { RunResult } from '../../results/result-types.js';
import type { CellComparison } from '../comparison-types.js';
import type { WaitJudgement } from './wait-evidence.js';
import type { MemoryJudgement } from './memory-evidence.js';

/**
 * What a cell's steady evidence holds: its workload's counts, the cell's waits, whether a plan changed, and
 * the cell's memory (memory-evidence.ts: a head whose memory moved is not passed on this evidence).
 */
export interface SteadyEvidence {
  instructions: InstructionJudgement | undefined;
  waits: WaitJudgement | undefined;
  planChanged: boolean;
  memory?: MemoryJudgement | undefined;
}

/** Up to how many clients steady evidence may pass a cell: a count, 'all', or 0 (never). */
export type SteadyPass = number | 'all';
export const DEFAULT_STEADY_PASS: SteadyPass = 'all';

/** The instruction judgement of each head and workload (its 1-client cell), from the document's record. */
export type SteadyLookup = (head: string, workload: string) => InstructionJudgement | undefined;

export function steadyLookup(result: Pick<RunResult, 'instructions' | 'arms'>): SteadyLookup {
  const record = result.instructions;
  const base = result.arms[0]?.label;
  if (!record || base === undefined) return () => undefined;
  const cells = new Map<string, { workload: string; clients: number }>();
  for (const s of record.samples) cells.set(s.workload, { workload: s.workload, clients: s.clients });
  const memo = new Map<string, InstructionJudgement | undefined>();
  return (head, workload) => {
    const key = `${head}\u0000${workload}`;
    if (!memo.has(key)) {
      const cell = cells.get(workload);
      const judged = cell ? judgeInstructionCell(record, cell, base, head) : undefined;
      // Bistable counts are no evidence either way.
      memo.set(key, judged && judged.bistable.length === 0 ? judged.judged : undefined);
    }
    return memo.get(key);
  };
}

/**
 * `--steady-pass` / input `steady-pass`: a client count (1-10000), `all`, or `off` (also 0); a string
 * saying what is wrong otherwise.
 */
export function parseSteadyPass(value: string): { value: SteadyPass } | { problem: string } {
  const v = value.trim().toLowerCase();
  if (v === 'all') return { value: 'all' };
  if (v === 'off' || v === '0') return { value: 0 };
  if (/^\d{1,5}$/.test(v) && Number(v) >= 1 && Number(v) <= 10_000) return { value: Number(v) };
  return {
    problem: `must be a client count from 1 to 10000 (steady evidence may pass cells up to that many clients), all, or off; got '${value}'`,
  };
}

/** "1 client", "all client counts", "never": the policy in words. */
export function steadyPassText(policy: SteadyPass): string {
  if (policy === 'all') return 'all client counts';
  if (policy <= 0) return 'never';
  return `up to ${policy} client${policy === 1 ? '' : 's'}`;
}

/**
 * The cell decided on steady evidence, or the cell as it was: only an undecided cell with data, no
 * likely regression, an estimate inside the threshold on the worse side, at a client count the policy
 * covers, whose workload's instructions per transaction and plans did not change and whose waits did not
 * move (above 1 client they must have been measured).
 */
export function withSteadyEvidence(
  cell: CellComparison,
  evidence: SteadyEvidence,
  policy: SteadyPass,
): CellComparison {
  const counts = evidence.instructions;
  if (cell.verdict !== 'inconclusive' || counts?.verdict !== 'no-change' || evidence.planChanged) return cell;
  if (evidence.memory?.moved) return cell;
  if (policy !== 'all' && cell.clients > policy) return cell;
  if (evidence.waits ? !evidence.waits.unchanged : cell.clients > 1) return cell;
  if (cell.deltaPct === null || cell.ciEquivalence === null || cell.p === null) return cell;
  if (cell.reasons.some((r) => r.code === 'likely-regression' || r.code === 'baseline-drifted')) return cell;
  const worse = cell.better === 'higher' ? -cell.deltaPct : cell.deltaPct;
  if (worse >= cell.thresholdPct) return cell;
  const label = METRICS[cell.metric].label;
  const rounds = cell.pairs ?? Math.min(cell.base.n, cell.head.n);
  const level = Math.round(Math.min(cell.ciEquivalence.level, cell.ciEquivalence.achievedLevel) * 100);
  const interval = formatPctInterval(cell.ciEquivalence.lowerPct, cell.ciEquivalence.upperPct);
  const waits = evidence.waits ? `, waits unchanged (${evidence.waits.message})` : '';
  const message =
    `CPU work per transaction unchanged (${counts.reasons[0]!.message})${waits}, and ${label} ${formatPct(cell.deltaPct)} ` +
    `${interval} (${level}% CI) after ${rounds} round${rounds === 1 ? '' : 's'} shows no regression: passed on that ` +
    `evidence (steady-pass ${steadyPassText(policy)}); a ${label} change inside that interval is not ruled out`;
  return { ...cell, verdict: 'no-change', reasons: [{ code: 'steady-unchanged', message }, ...cell.reasons] };
}
