/**
 * `/pgperf run` and `/pgperf rerun`: the request checked against the workloads this workflow may run, then
 * decided for the read-only benchmark job (the PR's head as it is now, its merge-base, the workloads, client
 * counts and rounds), and the sticky comment told what is being measured, and for whom, until the result
 * replaces the note.
 */
import type { PgperfCommand } from '../../core/pgperf-command.js';
import { commentMarker } from '../../core/report/comment/comment-marker.js';
import { readCommentState, withCommentState } from '../../core/report/comment/comment-state.js';
import { escapeMarkdown } from '../../core/report/markdown-escape.js';
import { upsertStickyComment } from '../../github/sticky-comment.js';
import { PENDING_NOTE } from '../publish/publish.js';
import type { CommandContext, NamedWorkload } from './pr-command-types.js';
import { quote } from '../../core/report/markdown/reply-text.js';

/** run / rerun: validate the request, then hand it to the benchmark job. */
export async function requestRun(
  command: Extract<PgperfCommand, { kind: 'run' | 'rerun' }>,
  c: CommandContext,
): Promise<void> {
  const wanted = command.kind === 'rerun' ? [command.workload] : command.workloads;
  const clients = command.kind === 'rerun' ? [command.clients] : command.clients;
  const rounds = command.kind === 'run' ? command.rounds : undefined;
  const chosen = await chooseWorkloads(wanted, c);
  if (!chosen) return;
  const baseSha = await c.api.mergeBase(c.pr.baseSha, c.pr.headSha);
  const head = c.pr.headSha;
  const cells = clients ? clients.join(',') : "each workload's client counts";
  c.logger.info(
    `@${c.event.login} asked for ${command.kind}: ${chosen.map((n) => n.name).join(', ')} at ${cells} on ${head}`,
  );
  c.decided({
    command: command.kind,
    prNumber: c.pr.number,
    headSha: head,
    baseSha,
    workloads: chosen.map((n) => n.entry),
    ...(clients ? { clientCounts: clients } : {}),
    ...(rounds !== undefined ? { rounds } : {}),
  });
  // The result lands in the sticky comment: until then it says what is being measured, and for whom.
  const note = `${PENDING_NOTE}${quote(commandText(command))} by @${c.event.login}: measuring head ${head.slice(0, 12)} (the PR head at the command) against ${baseSha.slice(0, 12)}; this comment is updated with the result.`;
  await upsertStickyComment(c.api, {
    issueNumber: c.pr.number,
    marker: commentMarker(c.stickyId),
    body: (existing) => withPendingNote(existing, note, commentMarker(c.stickyId)),
  });
}

/**
 * The workloads a command names among those this workflow may run (all of them when it names none); a name
 * the workflow does not run is answered (invalid, with the names it runs) and gives undefined.
 */
export async function chooseWorkloads(
  wanted: readonly string[] | undefined,
  c: CommandContext,
): Promise<NamedWorkload[] | undefined> {
  const named: NamedWorkload[] = [];
  for (const entry of c.workloads.entries) named.push({ entry, name: await c.workloads.nameOf(entry) });
  const unknown = (wanted ?? []).filter((w) => !named.some((n) => n.name === w));
  if (unknown.length > 0) {
    c.decided({ command: 'invalid' });
    await c.reply(
      `unknown workload ${unknown.map((w) => `\`${escapeMarkdown(w)}\``).join(', ')}; this workflow runs ${named.map((n) => `\`${n.name}\``).join(', ')}.`,
    );
    return undefined;
  }
  return wanted ? named.filter((n) => wanted.includes(n.name)) : named;
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

/** The command as its canonical line, for the note. */
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
