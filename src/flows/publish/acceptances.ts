/**
 * Accepted regressions (`/pgperf accept`), kept in the bot's own acknowledgement comment (hidden record)
 * and read back whenever a decision is published. An acceptance counts only when all of these hold now:
 * the record is in a comment the token's own login wrote (nobody else can write or edit it); the command
 * comment it answers still exists, was never edited (created_at == updated_at), still says the same accept,
 * and is by the same login; and that login has write, maintain or admin permission now (the API, never the
 * text). It binds to the head commit the accepted result measured, which was the PR head when it was given.
 */
import type { Acceptance, GatePolicy } from '../../core/compare/decision/policy.js';
import { parsePgperfCommand } from '../../core/pgperf-command.js';
import { readHiddenRecord, renderHiddenRecord } from '../../core/report/comment/hidden-record.js';
import type { Logger } from '../../core/util/logger.js';
import {
  GitHubApiError,
  apiFailureHint,
  type GitHubApi,
  type IssueComment,
  type RepoPermission,
} from '../../github/api.js';

const TAG = 'acceptance';

/** Permissions that may start a run or accept a regression. */
export const STEERING_PERMISSIONS: readonly RepoPermission[] = ['admin', 'maintain', 'write'];

export interface AcceptanceRecord {
  /** The id of the `/pgperf accept` comment. */
  commandId: number;
  by: string;
  sha: string;
  reason: string;
  cells: Array<{ workload: string; clients: number; metric: string; deltaPct: number }>;
}

export function renderAcceptanceRecord(record: AcceptanceRecord): string {
  return renderHiddenRecord(TAG, record);
}

function readRecord(body: string): AcceptanceRecord | undefined {
  const r = readHiddenRecord(TAG, body) as Partial<AcceptanceRecord> | undefined;
  const ok =
    typeof r?.commandId === 'number' &&
    typeof r.by === 'string' &&
    typeof r.sha === 'string' &&
    typeof r.reason === 'string' &&
    Array.isArray(r.cells);
  return ok ? (r as AcceptanceRecord) : undefined;
}

/** The acceptances on a PR that still count (see the module comment); the others are logged, not used. */
export async function readAcceptances(
  api: GitHubApi,
  prNumber: number,
  logger: Logger,
): Promise<Acceptance[]> {
  const [login, comments] = await Promise.all([api.viewerLogin(), api.listComments(prNumber)]);
  const accepted: Acceptance[] = [];
  const permissions = new Map<string, RepoPermission>();
  for (const c of comments) {
    if (c.userLogin !== login) continue;
    const record = readRecord(c.body);
    if (!record) continue;
    const why = await whyNot(record, comments, api, permissions);
    if (why) {
      logger.info(`an acceptance by @${record.by} (comment ${record.commandId}) does not count: ${why}`);
      continue;
    }
    for (const cell of record.cells) {
      accepted.push({ ...cell, sha: record.sha, by: record.by, reason: record.reason });
    }
  }
  return accepted;
}

async function whyNot(
  record: AcceptanceRecord,
  comments: IssueComment[],
  api: GitHubApi,
  permissions: Map<string, RepoPermission>,
): Promise<string | undefined> {
  const command = comments.find((c) => c.id === record.commandId);
  if (!command) return 'its /pgperf accept comment was deleted';
  if (command.userLogin !== record.by) return `its comment is by @${command.userLogin}, not @${record.by}`;
  if (command.createdAt === undefined || command.createdAt !== command.updatedAt) {
    return 'its /pgperf accept comment was edited after it was given';
  }
  const parsed = parsePgperfCommand(command.body);
  if (!parsed?.ok || parsed.command.kind !== 'accept' || parsed.command.reason !== record.reason) {
    return 'its comment no longer says that /pgperf accept';
  }
  // The record may name only the cells its command named: a record is trusted no further than its command.
  const { workload, clients } = parsed.command;
  if (record.cells.some((c) => c.workload !== workload || (clients !== undefined && c.clients !== clients))) {
    return `it names cells its /pgperf accept ${workload}${clients !== undefined ? `@${clients}` : ''} did not`;
  }
  let permission = permissions.get(record.by);
  if (permission === undefined) {
    permission = await api.permission(record.by);
    permissions.set(record.by, permission);
  }
  if (!STEERING_PERMISSIONS.includes(permission)) {
    return `@${record.by}'s permission is now ${permission} (needs write, maintain or admin)`;
  }
  return undefined;
}

/**
 * The acceptances that count on the target's PR, for its head commit, when the job publishes (a comment
 * or a status); undefined when there are none, or when they cannot be read (logged: none applies).
 */
export async function acceptancesFor(
  target: { prNumber?: number; headSha?: string },
  publishes: { comment: boolean; commitStatus: boolean },
  deps: { api?: GitHubApi; logger: Logger },
): Promise<GatePolicy['accepted']> {
  const { api, logger } = deps;
  if (
    !api ||
    target.prNumber === undefined ||
    !target.headSha ||
    !(publishes.comment || publishes.commitStatus)
  ) {
    return undefined;
  }
  try {
    const acceptances = await readAcceptances(api, target.prNumber, logger);
    return acceptances.length > 0 ? { headSha: target.headSha, acceptances } : undefined;
  } catch (e) {
    if (!(e instanceof GitHubApiError)) throw e;
    const hint = apiFailureHint(e, 'pull-requests: read');
    logger.warn(
      `${e.message}.${hint ? ` ${hint}` : ''} Accepted regressions (/pgperf accept) could not be read: none applies.`,
    );
    return undefined;
  }
}
