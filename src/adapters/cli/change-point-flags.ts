/**
 * The change-point flags shared by `changepoints`, `history` and `nightly` (--p, --min-segment,
 * --magnitude), and the number-flag parser they and `stat` use: one definition, one wording of errors.
 */
import type { Command } from 'commander';
import { DEFAULT_MAX_P, DEFAULT_MIN_SEGMENT } from '../../core/stats/e-divisive.js';
import { UserError } from '../../core/util/errors.js';

export interface ChangePointFlags {
  p?: string;
  minSegment?: string;
  magnitude?: string;
}

export interface ChangePointSettings {
  maxP: number;
  minSegment: number;
  /** Percent. */
  magnitudePct: number;
}

export function addChangePointOptions(command: Command, unit = 'values'): Command {
  return command
    .option('--p <p>', `significance level of a change point, between 0 and 1 (default ${DEFAULT_MAX_P})`)
    .option(
      '--min-segment <n>',
      `fewest ${unit} on either side of a change point (default ${DEFAULT_MIN_SEGMENT})`,
    )
    .option('--magnitude <pct>', 'ignore changes no larger than this, in percent (default 0)');
}

export function changePointSettings(flags: ChangePointFlags): ChangePointSettings {
  return {
    maxP: numberFlag('--p', flags.p, DEFAULT_MAX_P, (v) => v > 0 && v < 1, 'a number between 0 and 1'),
    minSegment: numberFlag(
      '--min-segment',
      flags.minSegment,
      DEFAULT_MIN_SEGMENT,
      (v) => Number.isInteger(v) && v >= 2,
      'a whole number >= 2',
    ),
    magnitudePct: numberFlag('--magnitude', flags.magnitude, 0, (v) => v >= 0, 'a percentage >= 0 such as 2'),
  };
}

/** A number flag given as text ("2" or "2%"); `fallback` when absent; a UserError naming flag and value. */
export function numberFlag(
  flag: string,
  raw: string | undefined,
  fallback: number,
  valid: (v: number) => boolean,
  expected: string,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw.trim().replace(/%$/, ''));
  if (raw.trim() === '' || !Number.isFinite(value) || !valid(value)) {
    throw new UserError(`${flag} must be ${expected}, got '${raw}'`);
  }
  return value;
}
