/**
 * Where a run's rounds come from, said once, in the plan line: adaptive looks (by default, or asked for),
 * an option that fixes every workload's rounds, or each workload's own (its file's `rounds`, else the
 * default fixed rounds). The flows fill RoundsOrigin in the adapter's spelling; this renders it.
 */
import { DEFAULT_ROUNDS } from '../core/compare/defaults.js';
import type { SequentialDesign } from '../core/compare/analysis/adaptive.js';
import type { Workload } from '../drivers/workload.js';

export interface RoundsOrigin {
  /** The option that gave every workload's rounds ('--rounds', "input 'rounds'"). */
  given?: string;
  /** Adaptive rounds are the default here: the option that turns them off ('--fixed-rounds'). */
  optOut?: string;
  /** Why the rounds are fixed where adaptive ones would be the default ('--fixed-rounds', 'a stored baseline ...'). */
  fixedBecause?: string;
}

/**
 * "rounds: adaptive (looks at 6, 10, 15, 20, 30; obrien-fleming alpha spending; decided cells stop; at most
 * 20 min of measurement, never before the first look; --fixed-rounds to turn off)", "rounds: 8 (--rounds)",
 * "rounds: 10 (workload select-only), 5 (workload w, the default)" or "rounds: 5 (the default); fixed: --fixed-rounds".
 * `workloads` are the request's, before the rounds are applied to them.
 */
export function roundsText(
  req: {
    adaptive?: { plan: SequentialDesign; timeBudgetS?: number; byDefault?: true } | undefined;
    rounds?: number | undefined;
    roundsOrigin?: RoundsOrigin | undefined;
    memoryRounds?: { names: readonly string[]; rounds: number } | undefined;
  },
  workloads: readonly Pick<Workload, 'name' | 'rounds'>[],
): string {
  const memory = req.memoryRounds;
  if (!memory) return chosenRoundsText(req, workloads);
  const text = `${memory.rounds} for ${memory.names.join(', ')} (memory only: the counts decided)`;
  const others = workloads.filter((w) => !memory.names.includes(w.name));
  return others.length === 0 ? `rounds: ${text}` : `${chosenRoundsText(req, others)}; ${text}`;
}

/** roundsText of the rounds the user or the defaults chose. */
function chosenRoundsText(
  req: Parameters<typeof roundsText>[0],
  workloads: readonly Pick<Workload, 'name' | 'rounds'>[],
): string {
  const origin = req.roundsOrigin ?? {};
  if (req.adaptive) {
    const { plan, timeBudgetS, byDefault } = req.adaptive;
    const parts = [
      `looks at ${plan.schedule.join(', ')}`,
      `${plan.spending} alpha spending`,
      'decided cells stop',
      ...(timeBudgetS !== undefined
        ? [
            `at most ${minutes(timeBudgetS)} of measurement${byDefault ? ', never before the first look' : ''}`,
          ]
        : []),
      ...(origin.optOut ? [`${origin.optOut} to turn off`] : []),
    ];
    return `rounds: adaptive (${parts.join('; ')})`;
  }
  if (req.rounds !== undefined) return `rounds: ${req.rounds}${origin.given ? ` (${origin.given})` : ''}`;
  const fixed = origin.fixedBecause ? `; fixed: ${origin.fixedBecause}` : '';
  const own = workloads.filter((w) => w.rounds !== undefined);
  if (own.length === 0) return `rounds: ${DEFAULT_ROUNDS} (the default)${fixed}`;
  const each = workloads.map((w) =>
    w.rounds !== undefined
      ? `${w.rounds} (workload ${w.name})`
      : `${DEFAULT_ROUNDS} (workload ${w.name}, the default)`,
  );
  return `rounds: ${each.join(', ')}${fixed}`;
}

function minutes(s: number): string {
  return s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}
