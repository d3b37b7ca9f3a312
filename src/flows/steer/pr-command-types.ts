/**
 * What a `/pgperf` PR comment's flow is handed and what it decides: the comment as plain values (read from
 * the event by the adapter), the facts and services it needs, and its decision (what the benchmark job or
 * the comment job is to do), which the adapter turns into outputs.
 */
import type { Logger } from '../../core/util/logger.js';
import type { GitHubApi, PullRequestInfo } from '../../github/api.js';

/** The comment of an issue_comment event, as GitHub wrote it in the payload. */
export interface CommentEvent {
  action: string;
  /** Set when the comment is on a pull request (issue.pull_request is present). */
  prNumber?: number;
  commentId: number;
  login: string;
  body: string;
  /** When GitHub recorded the comment (ms since the epoch), when the payload says. */
  createdAtMs?: number;
}

/** A workload this workflow may run: its entry as configured, and the name a command calls it by. */
export interface NamedWorkload {
  entry: string;
  name: string;
}

/** A run the comment asks for, for a read-only benchmark job. */
export interface BenchmarkRequest {
  command: 'run' | 'rerun';
  prNumber: number;
  /** The PR's head as it is now. */
  headSha: string;
  /** The merge-base of the PR's base and head. */
  baseSha: string;
  /** The entries of the chosen workloads. */
  workloads: string[];
  /** The client counts asked for; absent: each workload's own. */
  clientCounts?: number[];
  rounds?: number;
}

/** An acceptance recorded: the comment job is to publish the result for `headSha` again. */
export interface RepublishRequest {
  command: 'accept';
  prNumber: number;
  headSha: string;
  /** The workflow run whose results the comment shows, when its state line says. */
  resultsRunId?: string;
}

/** An attribution the comment asks for, for the attribute job (mode attribute, docs/pr-commands.md). */
export interface AttributeRequest {
  command: 'attribute';
  /** The PR the report is posted on, as a reply. */
  prNumber: number;
  /** The range's ends as written (checked refs), resolved in the PR's base repository by the attribute job. */
  from: string;
  to: string;
  /** The entries of the chosen workloads. */
  workloads: string[];
}

/** What the comment was taken as, and what it asks for. */
export type CommandDecision =
  { command: 'refused' | 'invalid' | 'help' } | BenchmarkRequest | RepublishRequest | AttributeRequest;

export interface PrCommandDeps {
  api: GitHubApi;
  logger: Logger;
  /** The id of the sticky comment a run's result lands in (the marker's id). */
  stickyId: string;
  /**
   * The workloads this workflow may run: their entries as configured, and the name of each (its file is
   * loaded only when a run is asked for).
   */
  workloads: { entries: readonly string[]; nameOf: (entry: string) => Promise<string> };
  /**
   * Called once, as soon as the comment is decided on and before the replies that follow, so that the
   * decision stands even when a reply then fails.
   */
  decided: (decision: CommandDecision) => void;
}

/** A command being handled: its comment, the open PR, the deps, and a reply to the commenter. */
export interface CommandContext extends PrCommandDeps {
  event: CommentEvent;
  pr: PullRequestInfo;
  reply: (text: string) => Promise<void>;
}
