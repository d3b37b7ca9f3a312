/**
 * The lines `pgperf demo` prints around its comparison (src/flows/compare/demo-comparison.ts decides what
 * they say): why its threshold is not the default, which arm is which, how its verdict reads, and what to
 * run next, each command as it runs when pasted.
 */
import type { OverallVerdict } from '../../compare/comparison-types.js';
import { shellWord } from '../../util/shell-word.js';

/** The demo's threshold against the default: the rounds the default would need at the assumed noise. */
export interface DemoThreshold {
  thresholdPct: number;
  defaultPct: number;
  /** Rounds the default threshold would need (checkDesign). */
  recommendedRounds: number;
  /** The run-to-run noise the plan check assumes (%). */
  noiseCvPct: number;
  /** Rounds the demo runs. */
  rounds: number;
}

/** The demo's two arms, each with what its settings are. */
export interface DemoArmsView {
  base: { label: string; says: string };
  head: { label: string; says: string };
}

/** The demo's first next step: the stored runs as a site, or this run as a mail reply. */
export type DemoNext =
  | {
      kind: 'history';
      /** The --store the run was saved to, as given (undefined: the default store). */
      store: string | undefined;
      /** The site's directory. */
      out: string;
    }
  | { kind: 'mail'; resultsFile: string };

/** "threshold 10% (the default 2% would need about 23 rounds at the assumed 2.0% noise; the demo runs 5)". */
export function demoThresholdText(t: DemoThreshold): string {
  return (
    `threshold ${t.thresholdPct}% (the default ${t.defaultPct}% would need about ` +
    `${t.recommendedRounds} rounds at the assumed ${t.noiseCvPct.toFixed(1)}% noise; the demo runs ` +
    `${t.rounds})`
  );
}

/** "base is arm 'sync-on' (synchronous_commit=on, the default), head is arm 'sync-off' (synchronous_commit=off)". */
export function demoArmsText(arms: DemoArmsView): string {
  return (
    `base is arm '${arms.base.label}' (${arms.base.says}), ` +
    `head is arm '${arms.head.label}' (${arms.head.says})`
  );
}

/**
 * The last line of the demo: which arm is head, and what its verdict says about synchronous_commit, e.g.
 * "demo: base is arm 'sync-on' (...), head is arm 'sync-off' (...): improvement: head is faster: ...".
 */
export function demoReadingText(verdict: OverallVerdict, arms: DemoArmsView): string {
  const reading =
    verdict === 'improvement'
      ? 'head is faster: with synchronous_commit=off a commit returns before its WAL is flushed to disk, so it does not wait for the flush'
      : verdict === 'regression' || verdict === 'mixed'
        ? "head is slower in some cell, which synchronous_commit=off alone does not explain: the machine's noise decided it (try more rounds: pgperf demo --rounds 10)"
        : "no improvement was decided: too few rounds for this machine's noise, or a disk whose flush is nearly free (tmpfs, a write-back cache), which leaves the two settings close (try more rounds: pgperf demo --rounds 10)";
  return `demo: ${demoArmsText(arms)}: ${verdict}: ${reading}`;
}

/**
 * The demo's last lines: what to run next, each a command that runs as printed (a shell comment says what
 * it is for), then how to measure a change of one's own.
 */
export function demoNextLines(next: DemoNext): string[] {
  const first =
    next.kind === 'history'
      ? `pgperf history${next.store === undefined ? '' : ` --store ${shellWord(next.store)}`} --out ${next.out}` +
        `   # the stored runs as a web page: open ${next.out}/index.html`
      : `pgperf compare ${shellWord(next.resultsFile)} --format mail   # this run as a plain-text reply for the list`;
  return [
    `next: ${first}`,
    'next: pgperf run --help   # your own change: two installs (--arm), or two commits built from a PostgreSQL clone (--base/--head)',
  ];
}
