/**
 * The sticky comment's hidden state: what the last published decision was, for the commit it measured,
 * so that a later run can tell news from a repeat (`comment-on: change`) and `/pgperf accept` can record
 * the delta it accepts. One HTML comment line, its JSON base64url-encoded so nothing in it can end the
 * comment early. Only comments the token's own login wrote are read back (sticky-comment.ts).
 */
import type { Decision } from '../compare/decision.js';

const PREFIX = '<!-- pgperf:state ';
const SUFFIX = ' -->';

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

export function renderCommentState(state: CommentState): string {
  return `${PREFIX}${Buffer.from(JSON.stringify(state)).toString('base64url')}${SUFFIX}`;
}

/** The state line of a comment body, or undefined when it has none or it does not parse. */
export function readCommentState(body: string): CommentState | undefined {
  const line = body.split('\n').find((l) => l.startsWith(PREFIX) && l.endsWith(SUFFIX));
  if (!line) return undefined;
  try {
    const state = JSON.parse(
      Buffer.from(line.slice(PREFIX.length, -SUFFIX.length), 'base64url').toString('utf8'),
    ) as CommentState;
    return typeof state.sha === 'string' && Array.isArray(state.cells) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** The body with its state line replaced (or added at the end). */
export function withCommentState(body: string, state: CommentState): string {
  const kept = body.split('\n').filter((l) => !(l.startsWith(PREFIX) && l.endsWith(SUFFIX)));
  while (kept.length > 0 && kept.at(-1) === '') kept.pop();
  return `${kept.join('\n')}\n\n${renderCommentState(state)}\n`;
}
