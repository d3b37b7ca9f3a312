/**
 * The decision of every flow (a comparison, a consolidation, a shard, a night, a bisection, a calibration,
 * a PR command):
 * the one shape every surface renders — verdict, outcome, exit code, headline, commit status, the step's
 * failure and what decided it. A comparison's Decision (decision.ts) is one with its cells; the other
 * flows state their facts (what they found, whether that fails the gate, whether they finished) and
 * flowDecision turns them into the same value by the same rules, so the CLI's exit code, the Action's
 * outputs and step, and decision.json cannot disagree for any flow.
 */
import { plainText } from '../../util/plain-text.js';
import type { FailOn } from './policy.js';
import type { OverallVerdict } from '../comparison-types.js';

/** passed (exit 0), failed: the gate failed (1), pending: undecided, not failing (0), incomplete (3). */
export type DecisionOutcome = 'passed' | 'failed' | 'pending' | 'incomplete';

export type CommitStatusState = 'success' | 'failure' | 'error' | 'pending';

/** The documented exit codes of every gating command (2 is a usage or input error, raised before). */
export const EXIT_CODES = { passed: 0, failed: 1, usage: 2, incomplete: 3 } as const;

/** GitHub's limit for a commit status description. */
export const STATUS_DESCRIPTION_MAX = 140;

export type Flow =
  'compare' | 'consolidate' | 'shard' | 'nightly' | 'bisect' | 'calibrate' | 'command' | 'attribute';

/** What every flow's decision holds. */
export interface GateDecision {
  flow: Flow;
  /** The overall verdict; 'inconclusive' when the flow did not complete. */
  verdict: OverallVerdict;
  outcome: DecisionOutcome;
  exitCode: 0 | 1 | 3;
  failOn: FailOn;
  /** The one line said first everywhere: `lead` in words, `detail` what is behind it. */
  headline: { lead: string; detail: string };
  status: { state: CommitStatusState; description: string };
  /** Why the gate fails (the step's error); absent when it passes. */
  failure?: string;
  /** What decided it, each in a few words: cells ("ro@64 TPS"), series, a commit. */
  deciding: string[];
  /** Why the flow could not complete (outcome 'incomplete'). */
  incomplete?: string;
}

/** What a flow found, in its own terms; flowDecision applies the gate's common rules to it. */
export interface FlowFacts {
  flow: Flow;
  verdict: OverallVerdict;
  failOn: FailOn;
  /** Set when the flow could not complete: fails (3) unless fail-on never. */
  incomplete?: string;
  /** Set when the flow's own rule fails the gate under `failOn` (never consulted under fail-on never). */
  fails?: string;
  /** Undecided, not failing: the outcome is pending. */
  pending?: boolean;
  /** The headline's words ("No open regression"), without the outcome word. */
  lead: string;
  detail: string;
  deciding: string[];
}

/**
 * The decision of a flow's facts: incomplete (exit 3) when it did not complete, failed (1) when its rule
 * fails the gate, pending when undecided, passed otherwise; fail-on never passes everything it measured.
 */
export function flowDecision(facts: FlowFacts): GateDecision {
  const gates = facts.failOn !== 'never';
  const base = { flow: facts.flow, failOn: facts.failOn, deciding: facts.deciding };
  if (facts.incomplete !== undefined) {
    return {
      ...base,
      verdict: 'inconclusive',
      outcome: 'incomplete',
      exitCode: gates ? EXIT_CODES.incomplete : EXIT_CODES.passed,
      headline: { lead: 'Incomplete', detail: facts.incomplete },
      status: { state: 'error', description: clip(`Incomplete: ${facts.incomplete}`) },
      ...(gates ? { failure: facts.incomplete } : {}),
      incomplete: facts.incomplete,
    };
  }
  const outcome: DecisionOutcome =
    gates && facts.fails !== undefined ? 'failed' : facts.pending ? 'pending' : 'passed';
  const headline = { lead: facts.lead, detail: facts.detail };
  const word = { passed: 'Passed', failed: 'Failed', pending: 'Pending' }[outcome];
  return {
    ...base,
    verdict: facts.verdict,
    outcome,
    exitCode: outcome === 'failed' ? EXIT_CODES.failed : EXIT_CODES.passed,
    headline,
    status: {
      state: outcome === 'failed' ? 'failure' : outcome === 'pending' ? 'pending' : 'success',
      description: clip(`${word}: ${headlineText({ headline })}`),
    },
    ...(outcome === 'failed' ? { failure: `${facts.fails} (fail-on: ${facts.failOn})` } : {}),
  };
}

export function headlineText(d: Pick<GateDecision, 'headline'>): string {
  return d.headline.detail === '' ? d.headline.lead : `${d.headline.lead}: ${d.headline.detail}`;
}

/** A commit status description: plain text, at most STATUS_DESCRIPTION_MAX characters. */
export function clip(text: string): string {
  return plainText(text, STATUS_DESCRIPTION_MAX);
}
