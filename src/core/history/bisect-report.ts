/**
 * A bisection's report as plain values: the commits tested with their judgements, the outcome (the first
 * bad commit, a failure to reproduce, or the range left undecided) and the cost. src/flows/bisect makes
 * it; core/report/bisect renders it.
 */
import type { DeltaInterval, Verdict } from '../compare/comparison-types.js';
import type { AnalysisSettings } from '../results/result-types.js';

/** A commit of the range: its id and subject line. */
export interface RangeCommit {
  sha: string;
  subject: string;
}

/** What the judge made of one commit against good. */
export type Call = 'good' | 'bad' | 'undecided';

/** One measurement of a commit against good. */
export interface BisectTry {
  try: number;
  /** Rounds asked for (maxRounds when adaptive). */
  rounds: number;
  verdict: Verdict;
  deltaPct: number | null;
  ci95: DeltaInterval | null;
  /** Rounds with both arms measured. */
  pairs: number | null;
  resultsFile: string;
  /** The run's id in the results store, when it was saved to one (a run that measured nothing is not). */
  storedAs?: string;
  measureS: number;
  /** The commit's compiled code is good's: decided no-change without a measurement (core/compare/analysis/same-code.ts). */
  sameCompiledCode?: true;
}

export interface CommitJudgement {
  verdict: Verdict;
  /** Of the last try. */
  deltaPct: number | null;
  ci95: DeltaInterval | null;
  tries: BisectTry[];
  build: { cacheHit: boolean; seconds: number; installDir: string };
  /** The run was stopped (Ctrl-C) before it could decide. */
  interrupted?: boolean;
}

export interface TestedCommitReport extends RangeCommit {
  /** Position in the range (0 = good). */
  index: number;
  step: number;
  call: Call;
  judgement: CommitJudgement;
}

export type BisectOutcome =
  | {
      kind: 'found';
      firstBad: RangeCommit;
      lastGood: RangeCommit;
      /** Absent when the first bad commit is bad itself, assumed bad and never measured (verifyBad false). */
      judgement?: CommitJudgement;
    }
  | { kind: 'not-reproduced'; judgement: CommitJudgement }
  | {
      kind: 'undecided';
      lastGood: RangeCommit;
      /** The first bad commit is one of these (oldest first). */
      candidates: RangeCommit[];
      undecided: RangeCommit;
      interrupted: boolean;
    };

export interface BisectCost {
  builds: number;
  cacheHits: number;
  buildS: number;
  /** Wall time of the A/B tests (server start, data load and the measured runs). */
  measureS: number;
  tests: number;
  totalS: number;
}

export interface BisectReport {
  repo: string;
  good: RangeCommit;
  bad: RangeCommit;
  walk: 'first-parent' | 'ancestry-path';
  /** Commits after good up to bad. */
  candidates: number;
  cell: { workload: string; clients: number };
  analysis: AnalysisSettings;
  outcome: BisectOutcome;
  tested: TestedCommitReport[];
  cost: BisectCost;
  outDir: string;
}
