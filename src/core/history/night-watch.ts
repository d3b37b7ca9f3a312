/**
 * What the nightly history says about the runner rather than PostgreSQL: the runner canary (a frozen build
 * measured every night as its own series, `source.canary`) and the nights that are missing.
 *
 * - A change point of a canary series is runner drift (a kernel or firmware update, a new neighbour, another
 *   machine behind the same label): no PostgreSQL commit can move a frozen build. A regression whose change
 *   point falls on the same night (UTC day of its first bad run; a night either side, as far as a change
 *   point's place is uncertain on noisy nights) is marked suspect: said in the report and the regression
 *   issue, and it keeps the gate pending instead of failing it.
 * - A night that did not run (a gap between runs of a machine longer than 1.5 x the expected cadence, or no
 *   run since then) and a cell that vanished from its series (the machine's latest runs no longer measure
 *   it) are alerts: a history that stopped growing must not read as a quiet one (Horreum's missing-run rule).
 * Pure: the analysis in, the findings out.
 */
import {
  currentChangePoint,
  type HistoryAnalysis,
  type SeriesAnalysis,
  type SeriesChangePoint,
} from './history-analysis.js';
import { isCanaryWorkload } from './series.js';

/** A gap this many cadences long is a missing night. */
const MISSING_FACTOR = 1.5;
/** A cell missing from this many of its machine's latest runs vanished (older losses are retirements). */
const VANISHED_WITHIN_RUNS = 3;
/** Gaps older than this many cadences before the newest run are history, not alerts. */
const RECENT_CADENCES = 7;

export interface CanaryShift {
  /** The canary series ("fingerprint/canary:workload@clients/metric"). */
  series: string;
  /** The UTC night (YYYY-MM-DD) of its latest change point's first run after the change. */
  night: string;
  relativeChange: number;
}

export type NightAlert =
  | {
      kind: 'missing-nights';
      fingerprint: string;
      /** The last run before the gap, and the first after it (absent: none since). */
      from: string;
      to?: string;
      /** Nights the cadence expected in the gap. */
      nights: number;
      message: string;
    }
  | { kind: 'vanished-cell'; fingerprint: string; series: string; lastSeen: string; message: string };

export interface NightWatch {
  canaryShifts: CanaryShift[];
  /** Regressed series whose change point fell on a night the canary shifted, with why. */
  suspect: Map<string, string>;
  alerts: NightAlert[];
}

export interface NightWatchOptions {
  /** The expected time between nightly runs, in hours (24 for nightly); absent: no missing-night alerts. */
  expectEveryHours?: number;
  /** Now (the end of the window a missing night is looked for in). */
  now: Date;
}

/** The UTC night of an ISO date: "2026-11-27". */
export function nightOf(date: string): string {
  return new Date(date).toISOString().slice(0, 10);
}

export function watchNights(analysis: HistoryAnalysis, options: NightWatchOptions): NightWatch {
  const canaryShifts = analysis.series
    .filter((s) => isCanaryWorkload(s.series.key.workload))
    .flatMap((s): CanaryShift[] => {
      const cp = currentChangePoint(s);
      return cp
        ? [{ series: s.series.id, night: nightOf(cp.firstAfter.date), relativeChange: cp.relativeChange }]
        : [];
    });
  const suspect = new Map<string, string>();
  for (const s of analysis.series) {
    const cp = currentChangePoint(s);
    if (!cp || cp.kind !== 'regression' || isCanaryWorkload(s.series.key.workload)) continue;
    const shift = canaryShifts.find(
      (c) =>
        nightsApart(c.night, nightOf(cp.firstAfter.date)) <= SAME_NIGHT_TOLERANCE &&
        sameMachine(c.series, s.series.key.fingerprint),
    );
    if (shift) suspect.set(s.series.id, suspectReason(cp, shift));
  }
  return {
    canaryShifts,
    suspect,
    alerts: [...missingNights(analysis.series, options), ...vanishedCells(analysis.series)],
  };
}

/** Nights a canary's and a cell's change points may lie apart and still be "the same night". */
const SAME_NIGHT_TOLERANCE = 1;

function nightsApart(a: string, b: string): number {
  return Math.abs(Date.parse(a) - Date.parse(b)) / 86_400_000;
}

function sameMachine(canarySeries: string, fingerprint: string): boolean {
  return canarySeries.startsWith(`${fingerprint}/`);
}

function suspectReason(cp: SeriesChangePoint, shift: CanaryShift): string {
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  return (
    `suspect: the runner canary (a frozen build) moved ${pct(shift.relativeChange)} on ${shift.night}, the ` +
    `night of this ${pct(cp.relativeChange)}: runner drift, not PostgreSQL, until a rerun says otherwise`
  );
}

/** The machines' run dates (every series point, canary included), oldest first, per fingerprint. */
function runDates(series: readonly SeriesAnalysis[]): Map<string, string[]> {
  const byMachine = new Map<string, Set<string>>();
  for (const s of series) {
    const dates = byMachine.get(s.series.key.fingerprint) ?? new Set<string>();
    for (const p of s.series.points) dates.add(p.date);
    byMachine.set(s.series.key.fingerprint, dates);
  }
  return new Map([...byMachine].map(([m, d]) => [m, [...d].sort()]));
}

function missingNights(series: readonly SeriesAnalysis[], options: NightWatchOptions): NightAlert[] {
  if (options.expectEveryHours === undefined) return [];
  const cadenceMs = options.expectEveryHours * 3_600_000;
  const alerts: NightAlert[] = [];
  for (const [fingerprint, dates] of runDates(series)) {
    const times = [...dates.map((d) => Date.parse(d)), options.now.getTime()];
    const newest = times.at(-1)!;
    for (let i = 1; i < times.length; i++) {
      const gap = times[i]! - times[i - 1]!;
      if (gap <= MISSING_FACTOR * cadenceMs || newest - times[i]! > RECENT_CADENCES * cadenceMs) continue;
      const nights = Math.round(gap / cadenceMs) - 1;
      const from = dates[i - 1]!;
      const to = i < dates.length ? dates[i] : undefined;
      alerts.push({
        kind: 'missing-nights',
        fingerprint,
        from,
        ...(to !== undefined ? { to } : {}),
        nights: Math.max(1, nights),
        message:
          to !== undefined
            ? `${Math.max(1, nights)} expected nightly run(s) on ${fingerprint} did not happen between ${nightOf(from)} and ${nightOf(to)}`
            : `no nightly run on ${fingerprint} since ${nightOf(from)}: ${Math.max(1, nights)} expected run(s) missing`,
      });
    }
  }
  return alerts;
}

function vanishedCells(series: readonly SeriesAnalysis[]): NightAlert[] {
  // The canary's runs and the head's are told apart: a canary run after tonight's head vanishes nothing.
  const kind = (s: SeriesAnalysis) => isCanaryWorkload(s.series.key.workload);
  const dates = new Map(
    [true, false].map((canary) => [canary, runDates(series.filter((s) => kind(s) === canary))]),
  );
  return series.flatMap((s): NightAlert[] => {
    const machine = dates.get(kind(s))!.get(s.series.key.fingerprint) ?? [];
    const last = s.series.points.at(-1)?.date;
    if (last === undefined || last === machine.at(-1)) return [];
    // Runs of the machine after the cell's last point: it vanished if that happened lately.
    const since = machine.filter((d) => d > last).length;
    if (since > VANISHED_WITHIN_RUNS) return [];
    return [
      {
        kind: 'vanished-cell',
        fingerprint: s.series.key.fingerprint,
        series: s.series.id,
        lastSeen: last,
        message: `${s.series.id} was not measured by the last ${since} run(s) of its machine (last seen ${nightOf(last)})`,
      },
    ];
  });
}
