/**
 * `/pgperf attribute <from>..<to> [workloads=a,b]` (docs/pr-commands.md#attribute-a-range): the commits of
 * a range of the PR's base repository that moved the instructions per transaction. Decided here for the
 * attribute job (mode attribute, read-only: it builds whatever the refs name), whose artifact a comment job
 * posts as the reply (mode comment, which runs none of it). The refs are checked as every ref input is
 * (ref-name.ts) before anything starts; whether they exist, and that `<from>` is on `<to>`'s first-parent
 * line, the attribute job says (as `pgperf attribute` does).
 */
import type { PgperfCommand } from '../../core/pgperf-command.js';
import { codeText } from '../../core/report/markdown-escape.js';
import { refNameProblem } from '../../postgres/builds/ref-name.js';
import type { CommandContext } from './pr-command-types.js';
import { chooseWorkloads } from './run-command.js';

export async function requestAttribution(
  command: Extract<PgperfCommand, { kind: 'attribute' }>,
  c: CommandContext,
): Promise<void> {
  const problem =
    refNameProblem("'attribute' <from>", command.from) ?? refNameProblem("'attribute' <to>", command.to);
  if (problem) {
    c.logger.info(`attribute: ${problem}`);
    c.decided({ command: 'invalid' });
    await c.reply(`${problem}.`);
    return;
  }
  const chosen = await chooseWorkloads(command.workloads, c);
  if (!chosen) return;
  const names = chosen.map((n) => n.name);
  c.logger.info(`@${c.event.login} asked to attribute ${command.from}..${command.to}: ${names.join(', ')}`);
  c.decided({
    command: 'attribute',
    prNumber: c.pr.number,
    from: command.from,
    to: command.to,
    workloads: chosen.map((n) => n.entry),
  });
  await c.reply(
    `attributing ${codeText(command.from)}..${codeText(command.to)} of this repository (${names.map((n) => codeText(n)).join(', ')}): each commit that moved the instructions per transaction, with its change, share and top profile movers. The report follows as a reply when the attribute job ends.`,
  );
}
