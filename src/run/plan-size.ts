/**
 * The size of a comparison's plan, counted before anything is built or started: the runs it materialises
 * (workload files x matrix combinations x client counts x rounds x arms) and the seconds they measure at
 * least, each against its bound (PLANNED_RUNS, PLANNED_SECONDS in src/core/bounds.ts). Every factor has a
 * bound where it enters pgperf; this bounds their product, and the refusal names the product and each
 * factor with the option that sets it. Counting is linear in the workloads: nothing is materialised here.
 */
import { roundsOf } from '../drivers/common/workload-fields.js';
import { PLANNED_RUNS, PLANNED_SECONDS } from '../core/bounds.js';
import type { Workload } from '../drivers/workload.js';

/** What the plan is made of, as the comparison will run it. */
export interface PlanSizeInput {
  /** The workloads, matrices expanded and client counts overridden as the run will use them. */
  workloads: readonly Workload[];
  /** Arms measured in every round. */
  arms: number;
  /** Rounds of every workload (--rounds, an adaptive plan's maxRounds); absent: each workload's own. */
  rounds?: number;
  /** Seconds of every measured run (--duration); absent: each workload's own. */
  durationS?: number;
  /** Rounds of the confirmation block, counted as if every cell regressed (the most it can plan). */
  confirmRounds?: number;
  /**
   * A stored baseline: head alone is measured, but for these first rounds, in which the stored base's install
   * is measured with it (the sentinel, with its confirmation block).
   */
  sentinelRounds?: number;
  /** An adaptive run's time budget: measurement stops when it is spent. */
  timeBudgetS?: number;
  /**
   * Machines the cells are split over (--shard I/N): the time bounded is one shard's share. The runs are the
   * whole comparison's, which consolidation gathers into one document.
   */
  shards?: number;
}

/** How the adapter spells the options that set each factor ('--rounds', "input 'rounds'"). */
export interface PlanSizeNames {
  workloads: string;
  clients: string;
  rounds: string;
  confirmRounds: string;
  duration: string;
}

/** The plan's size and its factors. */
export interface PlanSize {
  runs: number;
  /** Seconds of measurement at least (runs and warm-ups; capped by a time budget), a shard's share. */
  seconds: number;
  cells: number;
  /** "10 workload files x 64 matrix combinations x 100 client counts x (1,000 rounds + 6 confirmation rounds) x 2 arms". */
  factors: string;
  /** Whether `runs` is the product of the factors as said (no factor said as "up to", where workloads differ). */
  exact: boolean;
}

/**
 * The plan's size. O(workloads): the cells are counted, never listed.
 *
 * @example planSize({ workloads: [oneWorkloadOf2ClientCountsAnd10Rounds], arms: 2, confirmRounds: 6 })
 *   // { runs: 64, cells: 2, factors: '1 workload file x 2 client counts x (10 rounds + 6 confirmation rounds) x 2 arms', ... }
 */
export function planSize(input: PlanSizeInput): PlanSize {
  const parts = roundParts(input);
  let runs = 0;
  let seconds = 0;
  let cells = 0;
  for (const w of input.workloads) {
    const count = w.clients.length;
    const rounds = input.rounds ?? roundsOf(w);
    const duration = input.durationS ?? w.duration;
    const warmup = Math.min(w.warmup, duration);
    cells += count;
    for (const part of parts) {
      const partRounds = part.rounds(rounds);
      if (partRounds <= 0) continue;
      runs += count * partRounds * part.arms;
      // Each block starts every cell on every arm with a warm-up (the confirmation block restarts the servers).
      seconds += count * part.arms * (partRounds * duration + warmup);
    }
  }
  seconds /= input.shards ?? 1;
  if (input.timeBudgetS !== undefined) seconds = Math.min(seconds, input.timeBudgetS);
  return { runs, seconds, cells, ...factorsText(input, parts) };
}

/**
 * Why the plan is too large (runs or seconds over their bound), in words that name the product and its
 * factors, and the options that set them when `names` says how they are spelled; undefined when it fits.
 */
export function planSizeProblem(input: PlanSizeInput, names?: PlanSizeNames): string | undefined {
  const size = planSize(input);
  const by = (what: string, name: keyof PlanSizeNames) => (names ? `${what} (${names[name]})` : what);
  const confirm = (input.confirmRounds ?? 0) > 0 ? `, ${by('confirmation rounds', 'confirmRounds')}` : '';
  const fewer = `plan fewer ${by('rounds', 'rounds')}${confirm}, ${by('client counts', 'clients')}, ${by('matrix values or workload files', 'workloads')}`;
  if (size.runs > PLANNED_RUNS.max) {
    return `the plan is too large: ${product(size)}; at most ${count(PLANNED_RUNS.max)} (every run is planned in memory before the first starts, and results.json, written again after each run, holds every sample): ${fewer}`;
  }
  if (size.seconds > PLANNED_SECONDS.max) {
    const share = (input.shards ?? 1) > 1 ? ` per shard (of ${count(input.shards!)})` : '';
    return `the plan is too long: ${product(size)}, measuring at least ${hours(size.seconds)}${share} (runs and warm-ups at their durations); at most ${hours(PLANNED_SECONDS.max)} of measurement: ${fewer}, or ${by('shorter runs', 'duration')}`;
  }
  return undefined;
}

/** "F x C x K x R x A = N runs", or "...: N runs in all" when a factor is said as "up to". */
function product(size: PlanSize): string {
  return `${size.factors}${size.exact ? ' =' : ':'} ${count(size.runs)} runs${size.exact ? '' : ' in all'}`;
}

/** A block of rounds with the arms it measures; `rounds` of a workload's rounds. */
interface RoundPart {
  /** "round", "confirmation round", "sentinel round". */
  noun: string;
  arms: number;
  rounds: (workloadRounds: number) => number;
}

/** The blocks of rounds a cell runs: the rounds (and a stored baseline's sentinel), then the confirmation. */
function roundParts(input: PlanSizeInput): RoundPart[] {
  const confirm = input.confirmRounds ?? 0;
  if (input.sentinelRounds === undefined) {
    // The confirmation block measures base and the regressed heads again; none with a single arm.
    return [
      { noun: 'round', arms: input.arms, rounds: (r) => r },
      ...(input.arms >= 2 && confirm > 0
        ? [{ noun: 'confirmation round', arms: input.arms, rounds: () => confirm }]
        : []),
    ];
  }
  const sentinel = input.sentinelRounds;
  const both = input.arms + 1;
  return [
    { noun: 'sentinel round', arms: both, rounds: (r) => Math.min(sentinel, r) },
    ...(sentinel > 0 && confirm > 0
      ? [{ noun: 'confirmation round', arms: both, rounds: () => confirm }]
      : []),
    { noun: 'round', arms: input.arms, rounds: (r) => r - Math.min(sentinel, r) },
  ];
}

/**
 * The factors in words: the cells as workload files x matrix combinations x client counts (a factor said
 * exactly when every workload shares it, else as "up to"), then the rounds and arms.
 */
function factorsText(input: PlanSizeInput, parts: RoundPart[]): { factors: string; exact: boolean } {
  const files = new Map<string, number>();
  for (const w of input.workloads) {
    // A matrix's workloads are named file[setting=value,...]; the name before "[" is the file's workload.
    const stem = w.name.split('[', 1)[0]!;
    files.set(stem, (files.get(stem) ?? 0) + 1);
  }
  const combos = [...files.values()];
  const clients = input.workloads.map((w) => w.clients.length);
  const rounds = input.workloads.map((w) => input.rounds ?? roundsOf(w));
  const cellFactors = [
    `${count(files.size)} workload ${files.size === 1 ? 'file' : 'files'}`,
    ...(largest(combos) > 1 ? [factor(combos, 'matrix combination')] : []),
    factor(clients, 'client count'),
  ];
  // A block's rounds said exactly when every workload has as many, else as "up to" the most.
  const [fewest, most] = [smallest(rounds), largest(rounds)];
  const blocks = parts
    .filter((p) => p.rounds(most) > 0)
    .map((p) => {
      const n = p.rounds(most);
      const upTo = p.rounds(fewest) === n ? '' : 'up to ';
      const armsOfBlock = distinctArms(parts) ? ` x ${arms(p.arms)}` : '';
      return `${upTo}${count(n)} ${p.noun}${n === 1 ? '' : 's'}${armsOfBlock}`;
    });
  const roundsText = blocks.length === 1 ? blocks[0]! : `(${blocks.join(' + ')})`;
  const armsText = distinctArms(parts) ? '' : ` x ${arms(parts[0]?.arms ?? input.arms)}`;
  const factors = `${cellFactors.join(' x ')} x ${roundsText}${armsText}`;
  return { factors, exact: !factors.includes('up to ') };
}

/** "64 matrix combinations" when every one shares the count, "up to 64 matrix combinations" otherwise. */
function factor(values: number[], noun: string): string {
  const max = largest(values);
  const plural = max === 1 ? noun : `${noun}s`;
  return values.every((v) => v === max) ? `${count(max)} ${plural}` : `up to ${count(max)} ${plural}`;
}

/** The largest of `values` (0 for none), without spreading a long list into arguments. */
function largest(values: readonly number[]): number {
  return values.reduce((a, b) => Math.max(a, b), 0);
}

/** The smallest of `values` (0 for none). */
function smallest(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => Math.min(a, b));
}

/** Whether the blocks measure different numbers of arms (a stored baseline's sentinel). */
function distinctArms(parts: RoundPart[]): boolean {
  return parts.some((p) => p.arms !== parts[0]!.arms);
}

function arms(n: number): string {
  return `${count(n)} ${n === 1 ? 'arm' : 'arms'}`;
}

/** 128,000,000. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "3,557 h (148 days)" or "5.5 h". */
function hours(seconds: number): string {
  const h = seconds / 3600;
  const text = h >= 100 ? count(Math.round(h)) : String(Math.round(h * 10) / 10);
  return h >= 48 ? `${text} h (${count(Math.round(h / 24))} days)` : `${text} h`;
}
