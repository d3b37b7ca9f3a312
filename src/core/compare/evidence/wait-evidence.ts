/**
 * Waiting as evidence. A change in throughput without a change in work comes from waiting: a lock held
 * longer, a sleep such as commit_delay, more I/O. Every timed run samples its backends' wait events
 * (src/postgres/wait-events.ts, on by default); here each round's share of backend time spent waiting on the
 * server (LWLock, Lock, BufferPin, IO, IPC, Timeout: not CPU, not waiting for the client) is paired between
 * base and head, and a cell's waits count as *unchanged* only when the mean change is within half the
 * threshold in percentage points of backend time and not significant (paired t, two-sided, 5 %). Steady
 * evidence (steady-evidence.ts) needs unchanged waits above 1 client: a head that only waits is never
 * passed on it.
 */
import { oneSampleT } from '../../stats/one-sample-t.js';
import type { RunDiagnostics } from '../../results/diagnostics.js';
import type { RunResult, Sample } from '../../results/result-types.js';

/** Wait classes that are the server's doing; CPU, Client (waiting for the client), Activity and idle are not. */
const SERVER_WAIT_TYPES = new Set(['LWLock', 'Lock', 'BufferPin', 'IO', 'IPC', 'Timeout', 'Extension']);
/** Significance of a paired change in the wait share. */
const WAIT_ALPHA = 0.05;
/** Fewest paired rounds with diagnostics for the waits to be evidence. */
const MIN_ROUNDS = 3;

export interface WaitJudgement {
  /** True when the waits did not move (see the module comment). */
  unchanged: boolean;
  /** Mean share of backend time in server waits, percent, base and head. */
  basePct: number;
  headPct: number;
  /** Mean paired change, percentage points. */
  deltaPts: number;
  /** Two-sided p of the paired change. */
  p: number;
  rounds: number;
  /** The wait event that grew most in head (Type:Event), when one grew. */
  topEvent?: string;
  /** "server waits 3.1% -> 3.4% of backend time (+0.3 points, 6 rounds)". */
  message: string;
}

/** "LWLock:BufferContent" is a server wait; "CPU:Running" and "Client:ClientRead" are not. */
function isServerWait(event: string): boolean {
  return SERVER_WAIT_TYPES.has(event.split(':')[0] ?? '');
}

/** The share of backend observations in server waits, 0..1; undefined without observations. */
export function serverWaitShare(d: RunDiagnostics): number | undefined {
  if (d.observations <= 0) return undefined;
  const waiting = d.waitEvents.filter((e) => isServerWait(e.event)).reduce((t, e) => t + e.count, 0);
  return waiting / d.observations;
}

/** Per head and cell, the judgement of its waits against base's; undefined where there is too little. */
export type WaitLookup = (
  head: string,
  cell: { workload: string; clients: number },
  thresholdPct: number,
) => WaitJudgement | undefined;

export function waitLookup(result: Pick<RunResult, 'samples' | 'arms'>): WaitLookup {
  const base = result.arms[0]?.label;
  const byKey = new Map<string, Map<number, Sample>>();
  for (const s of result.samples) {
    if (s.status !== 'ok' || !s.diagnostics) continue;
    const key = `${s.arm}\u0000${s.workload}\u0000${s.clients}`;
    let rounds = byKey.get(key);
    if (!rounds) byKey.set(key, (rounds = new Map()));
    rounds.set(s.round, s);
  }
  return (head, cell, thresholdPct) => {
    if (base === undefined) return undefined;
    const of = (arm: string) => byKey.get(`${arm}\u0000${cell.workload}\u0000${cell.clients}`);
    const b = of(base);
    const h = of(head);
    if (!b || !h) return undefined;
    const pairs: Array<{ base: Sample; head: Sample }> = [];
    for (const [round, sample] of b) {
      const other = h.get(round);
      if (other) pairs.push({ base: sample, head: other });
    }
    return judgeWaits(pairs, thresholdPct);
  };
}

/** The judgement of paired runs' waits (see the module comment). */
export function judgeWaits(
  pairs: ReadonlyArray<{ base: Sample; head: Sample }>,
  thresholdPct: number,
): WaitJudgement | undefined {
  const shares = pairs.flatMap((p) => {
    const b = serverWaitShare(p.base.diagnostics!);
    const h = serverWaitShare(p.head.diagnostics!);
    return b === undefined || h === undefined ? [] : [{ b: b * 100, h: h * 100 }];
  });
  if (shares.length < MIN_ROUNDS) return undefined;
  const deltas = shares.map((s) => s.h - s.b);
  const t = oneSampleT(deltas);
  const deltaPts = t.estimate;
  const basePct = shares.reduce((x, s) => x + s.b, 0) / shares.length;
  const headPct = shares.reduce((x, s) => x + s.h, 0) / shares.length;
  const margin = thresholdPct / 2;
  const unchanged = Math.abs(deltaPts) <= margin && !(t.p < WAIT_ALPHA);
  const topEvent = grownEvent(pairs);
  const fixed = (x: number) => x.toFixed(1);
  const sign = deltaPts >= 0 ? '+' : '';
  const message =
    `server waits ${fixed(basePct)}% -> ${fixed(headPct)}% of backend time ` +
    `(${sign}${fixed(deltaPts)} points, ${shares.length} rounds${topEvent && deltaPts > 0 ? `, most grown: ${topEvent}` : ''})`;
  return {
    unchanged,
    basePct,
    headPct,
    deltaPts,
    p: t.p,
    rounds: shares.length,
    ...(topEvent ? { topEvent } : {}),
    message,
  };
}

/** The server wait event whose share grew most from base to head, summed over the pairs. */
function grownEvent(pairs: ReadonlyArray<{ base: Sample; head: Sample }>): string | undefined {
  const growth = new Map<string, number>();
  const add = (d: RunDiagnostics, sign: number) => {
    if (d.observations <= 0) return;
    for (const e of d.waitEvents) {
      if (!isServerWait(e.event)) continue;
      growth.set(e.event, (growth.get(e.event) ?? 0) + (sign * e.count) / d.observations);
    }
  };
  for (const p of pairs) {
    add(p.head.diagnostics!, 1);
    add(p.base.diagnostics!, -1);
  }
  let top: string | undefined;
  let most = 0;
  for (const [event, g] of growth) {
    if (g > most) [top, most] = [event, g];
  }
  return top;
}
