/**
 * Mode command: a `/pgperf` PR comment (issue_comment, action created). It holds the write token, so it
 * never builds or runs anything: it acknowledges the comment (a reaction), checks the commenter's
 * permission through the API (write, maintain or admin; never from the comment text), and then either
 * replies (help, a refusal, the grammar) or writes the request as outputs for a read-only benchmark job:
 * the PR's head sha as it is now, its merge-base, the workloads, client counts and rounds. `accept`
 * records an accepted regression in the bot's own reply (src/flows/compare/acceptances.ts) for a comment job to apply.
 */
import { COMMAND_GRAMMAR, parsePgperfCommand, type PgperfCommand } from '../../core/pgperf-command.js';
import { readCommentState, withCommentState } from '../../core/report/comment-state.js';
import { commentMarker } from '../../core/report/comment-marker.js';
import { codeText, escapeMarkdown } from '../../core/report/markdown-escape.js';
import { formatPct } from '../../core/compare/format.js';
import { METRICS, type MetricName } from '../../core/results/metrics.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { GitHubApi, PullRequestInfo } from '../../github/api.js';
import { findStickyComment, upsertStickyComment } from '../../github/sticky-comment.js';
import {
  STEERING_PERMISSIONS,
  renderAcceptanceRecord,
  type AcceptanceRecord,
} from '../../flows/compare/acceptances.js';
import type { ActionDeps, ActionIO, ActionMode, ActionOutcome } from './action-deps.js';
import type { ActionContext } from './context.js';
import type { ActionInputs } from './inputs.js';
import { loadInputWorkloads } from './workloads.js';
import { PENDING_NOTE } from '../../flows/compare/publish.js';

/** The comment of an issue_comment event, as GitHub wrote it in the payload. */
interface CommentEvent {
  action: string;
  /** Set when the comment is on a pull request (issue.pull_request is present). */
  prNumber?: number;
  commentId: number;
  login: string;
  body: string;
  /** When GitHub recorded the comment (ms since the epoch), when the payload says. */
  createdAtMs?: number;
}

/**
 * The hidden marker of the bot's reply to a commenter without permission: the last such reply on the PR,
 * found by this marker among the comments of the token's own login, and its created_at, limit the replies.
 */
export const REFUSAL_MARKER = '<!-- pgperf:refused-permission -->';

/**
 * At most one reply per PR in this window to commenters without permission; their other commands get only
 * the reaction, so anyone who can comment cannot make the bot post without limit.
 */
export const REFUSAL_REPLY_INTERVAL_MS = 60 * 60 * 1000;

const NOTHING: ActionOutcome = { verdict: 'inconclusive', resultsFile: '', reportFile: '' };

export const runCommandMode: ActionMode = async (inputs, ctx, deps) => {
  const { logger, io } = deps;
  for (const name of ['run', 'republish']) io.setOutput(name, 'false');
  io.setOutput('command', '');
  if (ctx.eventName !== 'issue_comment') {
    throw new UserError(
      `mode command runs on issue_comment events (a PR comment starting with /pgperf), got '${ctx.eventName}': see docs/pr-commands.md`,
    );
  }
  const event = commentEventOf(ctx);
  if (event.prNumber === undefined) {
    logger.info('the comment is on an issue, not a pull request: nothing to do');
    return NOTHING;
  }
  const parsed = parsePgperfCommand(event.body);
  if (!parsed) {
    logger.info('the comment does not start with /pgperf: nothing to do');
    return NOTHING;
  }
  if (event.action !== 'created') {
    // An edit could turn any old comment (even one by a since-removed maintainer) into a command.
    logger.info(`the comment was ${event.action}, not created: only a new comment is a command`);
    return NOTHING;
  }
  const api = deps.api!;
  const prNumber = event.prNumber;
  await api.addReaction(event.commentId, 'eyes');
  const reply = async (text: string) => {
    await api.createComment(prNumber, `> ${quote(parsed.text)}\n\n@${event.login}: ${text}`);
  };
  const permission = await api.permission(event.login);
  if (!STEERING_PERMISSIONS.includes(permission)) {
    logger.info(`@${event.login} has ${permission} permission: refused, nothing starts`);
    io.setOutput('command', 'refused');
    // Unknown whether a reply is due (the comments could not be read): none, as when one is not.
    const quiet = await refusalReplyLimited(api, prNumber, event).catch(
      (e: unknown) => `the PR's comments could not be read to limit the replies (${errorMessage(e)})`,
    );
    if (quiet) {
      logger.info(`no reply (only the reaction): ${quiet}`);
      return NOTHING;
    }
    await reply(
      `sorry, pgperf runs and acceptances need write, maintain or admin permission on this repository, and yours is ${permission}. A maintainer can run \`/pgperf run\` for you.\n\n${REFUSAL_MARKER}`,
    );
    return NOTHING;
  }
  if (!parsed.ok) {
    logger.info(`not a valid command: ${parsed.problem}`);
    io.setOutput('command', 'invalid');
    await reply(`${escapeMarkdown(parsed.problem)}. The accepted words are:\n\n${grammarList()}`);
    return NOTHING;
  }
  const command = parsed.command;
  if (command.kind === 'help') {
    io.setOutput('command', 'help');
    await reply(`pgperf understands:\n\n${grammarList()}\n\nSee docs/pr-commands.md.`);
    return NOTHING;
  }
  const pr = await api.pullRequest(prNumber);
  if (pr.state !== 'open') {
    logger.info(`PR #${prNumber} is ${pr.state}: refused`);
    io.setOutput('command', 'refused');
    await reply(`PR #${prNumber} is ${pr.state}: pgperf measures and accepts only on open pull requests.`);
    return NOTHING;
  }
  if (command.kind === 'accept') {
    return accept(command, { event, pr, inputs, api, io, logger: deps.logger, reply });
  }
  return requestRun(command, { event, pr, inputs, ctx, deps, api, reply });
};

/** run / rerun: validate the request, then hand it to the benchmark job as outputs. */
async function requestRun(
  command: Extract<PgperfCommand, { kind: 'run' | 'rerun' }>,
  c: {
    event: CommentEvent;
    pr: PullRequestInfo;
    inputs: ActionInputs;
    ctx: ActionContext;
    deps: ActionDeps;
    api: GitHubApi;
    reply: (text: string) => Promise<void>;
  },
): Promise<ActionOutcome> {
  const { io, logger } = c.deps;
  const wanted = command.kind === 'rerun' ? [command.workload] : command.workloads;
  const clients = command.kind === 'rerun' ? [command.clients] : command.clients;
  const rounds = command.kind === 'run' ? command.rounds : undefined;
  // The workloads this workflow may run: the entries of the input 'workloads', by their names.
  const entries = c.inputs.workloads.length ? c.inputs.workloads : ['select-only'];
  const named: Array<{ entry: string; name: string; clients: number[] }> = [];
  for (const entry of entries) {
    const [w] = await loadInputWorkloads({ workloads: [entry] }, c.ctx, c.deps.actionDir);
    named.push({ entry, name: w!.name, clients: w!.clients });
  }
  const unknown = (wanted ?? []).filter((w) => !named.some((n) => n.name === w));
  if (unknown.length > 0) {
    io.setOutput('command', 'invalid');
    await c.reply(
      `unknown workload ${unknown.map((w) => `\`${escapeMarkdown(w)}\``).join(', ')}; this workflow runs ${named.map((n) => `\`${n.name}\``).join(', ')}.`,
    );
    return NOTHING;
  }
  const chosen = wanted ? named.filter((n) => wanted.includes(n.name)) : named;
  const baseSha = await c.api.mergeBase(c.pr.baseSha, c.pr.headSha);
  const head = c.pr.headSha;
  const cells = clients ? clients.join(',') : "each workload's client counts";
  logger.info(
    `@${c.event.login} asked for ${command.kind}: ${chosen.map((n) => n.name).join(', ')} at ${cells} on ${head}`,
  );
  io.setOutput('command', command.kind);
  io.setOutput('run', 'true');
  io.setOutput('pr-number', String(c.pr.number));
  io.setOutput('head-sha', head);
  io.setOutput('base-sha', baseSha);
  io.setOutput('workloads', chosen.map((n) => n.entry).join('\n'));
  io.setOutput('client-counts', clients ? clients.join(',') : '');
  io.setOutput('rounds', rounds !== undefined ? String(rounds) : '');
  // The result lands in the sticky comment: until then it says what is being measured, and for whom.
  const note = `${PENDING_NOTE}${quote(commandText(command))} by @${c.event.login}: measuring head ${head.slice(0, 12)} (the PR head at the command) against ${baseSha.slice(0, 12)}; this comment is updated with the result.`;
  await upsertStickyComment(c.api, {
    issueNumber: c.pr.number,
    marker: commentMarker(c.inputs.commentId),
    body: (existing) => withPendingNote(existing, note, commentMarker(c.inputs.commentId)),
  });
  return NOTHING;
}

/** accept: the named failing cells of the result the comment shows, for its commit, recorded in a reply. */
async function accept(
  command: Extract<PgperfCommand, { kind: 'accept' }>,
  c: {
    event: CommentEvent;
    pr: PullRequestInfo;
    inputs: ActionInputs;
    api: GitHubApi;
    io: ActionIO;
    logger: ActionDeps['logger'];
    reply: (text: string) => Promise<void>;
  },
): Promise<ActionOutcome> {
  const { io } = c;
  const marker = commentMarker(c.inputs.commentId);
  const [login, comments] = await Promise.all([c.api.viewerLogin(), c.api.listComments(c.pr.number)]);
  const sticky = findStickyComment(comments, login, marker);
  const state = sticky ? readCommentState(sticky.body) : undefined;
  const refuse = async (text: string) => {
    io.setOutput('command', 'refused');
    c.logger.info(`accept refused: ${text}`);
    await c.reply(text);
    return NOTHING;
  };
  if (!state) return refuse('there is no pgperf result on this PR to accept yet: run `/pgperf run` first.');
  if (state.sha !== c.pr.headSha) {
    return refuse(
      `the result shown is for ${state.sha.slice(0, 12)}, but the PR head is now ${c.pr.headSha.slice(0, 12)}: run \`/pgperf run\` first, then accept what it finds.`,
    );
  }
  const target = `${command.workload}${command.clients !== undefined ? `@${command.clients}` : ''}`;
  const cells = state.cells.filter(
    (s) =>
      s.workload === command.workload &&
      (command.clients === undefined || s.clients === command.clients) &&
      s.failsGate &&
      s.deltaPct !== null,
  );
  if (cells.length === 0) {
    const failing = state.cells.filter((s) => s.failsGate).map((s) => `${s.workload}@${s.clients}`);
    return refuse(
      `no cell of \`${target}\` fails the gate in the result for ${state.sha.slice(0, 12)}${failing.length > 0 ? ` (failing: ${[...new Set(failing)].join(', ')})` : ' (nothing fails)'}: nothing to accept.`,
    );
  }
  const record: AcceptanceRecord = {
    commandId: c.event.commentId,
    by: c.event.login,
    sha: state.sha,
    reason: command.reason,
    cells: cells.map((s) => ({
      workload: s.workload,
      clients: s.clients,
      metric: s.metric,
      deltaPct: s.deltaPct!,
    })),
  };
  // The cells come from the comment's state line: escaped like any text read back from a comment.
  const listed = cells
    .map(
      (s) =>
        `${codeText(`${s.workload}@${s.clients}`)} ${escapeMarkdown(METRICS[s.metric as MetricName]?.label ?? s.metric)} ${formatPct(s.deltaPct!)}`,
    )
    .join(', ');
  await c.api.createComment(
    c.pr.number,
    [
      `> ${quote(`/pgperf accept ${target} ${command.reason}`)}`,
      '',
      `✅ Accepted by @${c.event.login} for ${state.sha.slice(0, 12)}: ${listed}: ${escapeMarkdown(command.reason)}.`,
      'A new head commit, or a regression worse than this by more than its threshold, ends the acceptance; editing or deleting the command ends it too.',
      '',
      renderAcceptanceRecord(record),
    ].join('\n'),
  );
  await c.api.addReaction(c.event.commentId, '+1');
  io.setOutput('command', 'accept');
  io.setOutput('republish', 'true');
  io.setOutput('pr-number', String(c.pr.number));
  io.setOutput('head-sha', state.sha);
  io.setOutput('results-run-id', state.runId ?? '');
  return NOTHING;
}

/**
 * Why the refusal to a commenter without permission gets no reply, or undefined when it gets one. A reply
 * is due when nothing was replied within REFUSAL_REPLY_INTERVAL_MS before the command: neither the bot's
 * own comment with REFUSAL_MARKER (one without a time GitHub recorded counts as recent) nor, for a burst of
 * commands whose jobs run at once (none of them sees another's reply yet), an earlier `/pgperf` comment of
 * the same commenter that this rule, applied to it in turn, answers. Every job of a burst computes the same
 * from the same comments, so only the first gets the reply. "Now" is the command's created_at, GitHub's
 * clock as the replies' created_at are (the runner's clock when the payload has none); a reply created
 * after the command (a queued job) counts as recent.
 */
async function refusalReplyLimited(
  api: GitHubApi,
  prNumber: number,
  event: CommentEvent,
): Promise<string | undefined> {
  const [login, comments] = await Promise.all([api.viewerLogin(), api.listComments(prNumber)]);
  const recent = (at: number, before: number) => Number.isNaN(at) || before - at < REFUSAL_REPLY_INTERVAL_MS;
  const replies = comments
    .filter((c) => c.userLogin === login && c.body.includes(REFUSAL_MARKER))
    .map((c) => ({ at: c.createdAt === undefined ? NaN : Date.parse(c.createdAt), what: `comment ${c.id}` }));
  const earlier = comments
    .filter(
      (c) =>
        c.id < event.commentId &&
        c.userLogin === event.login &&
        c.createdAt !== undefined &&
        parsePgperfCommand(c.body) !== undefined,
    )
    .sort((a, b) => a.id - b.id);
  for (const c of earlier) {
    const at = Date.parse(c.createdAt!);
    if (!Number.isNaN(at) && !replies.some((r) => recent(r.at, at))) {
      replies.push({ at, what: `the reply to @${event.login}'s earlier command ${c.id}` });
    }
  }
  const now = event.createdAtMs ?? Date.now();
  const last = replies.find((r) => recent(r.at, now));
  if (last === undefined) return undefined;
  return `PR #${prNumber} had a reply to a commenter without permission within the hour (${last.what}): at most one per PR per hour`;
}

/** The comment fields of an issue_comment payload; a payload without them is refused naming the fields. */
function commentEventOf(ctx: ActionContext): CommentEvent {
  const p = ctx.payload as {
    action?: unknown;
    issue?: { number?: unknown; pull_request?: unknown };
    comment?: { id?: unknown; body?: unknown; user?: { login?: unknown }; created_at?: unknown };
  };
  const missing = [
    typeof p.issue?.number === 'number' ? '' : 'issue.number',
    typeof p.comment?.id === 'number' ? '' : 'comment.id',
    typeof p.comment?.user?.login === 'string' ? '' : 'comment.user.login',
    typeof p.comment?.body === 'string' ? '' : 'comment.body',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new UserError(
      `the issue_comment event payload (GITHUB_EVENT_PATH ${ctx.eventPath ?? 'not set'}) has no ${missing.join(', ')}; expected the payload GitHub writes for a comment`,
    );
  }
  const created = typeof p.comment?.created_at === 'string' ? Date.parse(p.comment.created_at) : NaN;
  const createdAtMs = Number.isNaN(created) ? undefined : created;
  return {
    action: typeof p.action === 'string' ? p.action : '',
    ...(p.issue!.pull_request ? { prNumber: p.issue!.number as number } : {}),
    commentId: p.comment!.id as number,
    login: p.comment!.user!.login as string,
    body: p.comment!.body as string,
    ...(createdAtMs !== undefined ? { createdAtMs } : {}),
  };
}

/** The sticky comment with `note` at its top (replacing an earlier note); its state line is kept. */
function withPendingNote(existing: string | undefined, note: string, marker: string): string {
  if (!existing) return `${marker}\n${note}\n`;
  const lines = existing.split('\n').filter((l) => !l.startsWith(PENDING_NOTE));
  const first = lines[0]?.startsWith('<!--') ? lines.shift()! : marker;
  const body = [first, note, ...lines].join('\n');
  const state = readCommentState(existing);
  return state ? withCommentState(body, state) : body;
}

function commandText(command: PgperfCommand): string {
  switch (command.kind) {
    case 'rerun':
      return `/pgperf rerun ${command.workload}@${command.clients}`;
    case 'run':
      return [
        '/pgperf run',
        command.workloads ? `workloads=${command.workloads.join(',')}` : '',
        command.clients ? `clients=${command.clients.join(',')}` : '',
        command.rounds !== undefined ? `rounds=${command.rounds}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    default:
      return `/pgperf ${command.kind}`;
  }
}

function grammarList(): string {
  return COMMAND_GRAMMAR.map((g) => `- ${g}`).join('\n');
}

/** A command line quoted in a reply: plain text, never markup or mentions. */
function quote(text: string): string {
  return escapeMarkdown(text, 200);
}
