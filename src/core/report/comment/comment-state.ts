/**
 * The sticky comment's hidden state: what the last published decision was, for the commit it measured,
 * so that a later run can tell news from a repeat (`comment-on: change`) and `/pgperf accept` can record
 * the delta it accepts. One HTML comment line, its JSON base64url-encoded so nothing in it can end the
 * comment early. Only comments the token's own login wrote are read back (sticky-comment.ts).
 */
import type { Decision } from '../../compare/decision/decision.js';
import { isHiddenRecordLine, readHiddenRecord, renderHiddenRecord } from './hidden-record.js';

const TAG = 'state';

export interface CommentStateCell {
  workload: string;
  clients: number;
  metric: string;
  deltaPct: number | null;
  failsGate: boolean;
  verdict: string;
}

export interface CommentState {
  /** The head commit the decision is about. */
  sha: string;
  outcome: Decision['outcome'];
  verdict: Decision['verdict'];
  /** The workflow run whose results these are (GITHUB_RUN_ID), for a later job to fetch them. */
  runId?: string;
  cells: CommentStateCell[];
}

/** The state of a decision about `sha`. */
export function commentStateOf(decision: Decision, sha: string, runId?: string): CommentState {
  return {
    sha,
    outcome: decision.outcome,
    verdict: decision.verdict,
    ...(runId ? { runId } : {}),
    cells: decision.cells.map((c) => ({
      workload: c.workload,
      clients: c.clients,
      metric: c.metric,
      deltaPct: c.deltaPct,
      failsGate: c.failsGate,
      verdict: c.verdict,
    })),
  };
}

function renderCommentState(state: CommentState): string {
  return renderHiddenRecord(TAG, state);
}

/** The state line of a comment body, or undefined when it has none or it does not parse. */
export function readCommentState(body: string): CommentState | undefined {
  const state = readHiddenRecord(TAG, body) as Partial<CommentState> | undefined;
  return typeof state?.sha === 'string' && Array.isArray(state.cells) ? (state as CommentState) : undefined;
}

/** The body with its state line replaced (or added at the end). */
export function withCommentState(body: string, state: CommentState): string {
  const kept = body.split('\n').filter((l) => !isHiddenRecordLine(TAG, l));
  while (kept.length > 0 && kept.at(-1) === '') kept.pop();
  return `${kept.join('\n')}\n\n${renderCommentState(state)}\n`;
}
