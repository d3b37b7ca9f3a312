/**
 * The decision of mode command, in the shape every flow's decision has (flow-decision.ts): what the
 * comment was taken as. Handling a command never fails the step (a refusal is answered, not an error); the
 * benchmark job it requests has its own decision.
 */
import { flowDecision, type GateDecision } from '../../core/compare/decision/flow-decision.js';
import type { FailOn } from '../../core/compare/decision/policy.js';
import { short } from '../../core/util/commit-id.js';
import type { CommandDecision } from './pr-command-types.js';

/** `taken` is what the comment was taken as; undefined when it was no command (not new, not /pgperf, not on a PR). */
export function commandDecision(taken: CommandDecision | undefined, failOn: FailOn): GateDecision {
  const facts = { flow: 'command' as const, verdict: 'inconclusive' as const, failOn, deciding: [] };
  if (!taken) {
    return flowDecision({
      ...facts,
      lead: 'No command',
      detail: 'the comment is not a new /pgperf comment on a pull request',
    });
  }
  const [lead, detail] = wordsOf(taken);
  return flowDecision({ ...facts, lead, detail });
}

function wordsOf(d: CommandDecision): [string, string] {
  switch (d.command) {
    case 'refused':
      return ['Command refused', 'the commenter has no write permission on the repository'];
    case 'invalid':
      return ['Command not understood', 'the reply lists the commands pgperf accepts'];
    case 'help':
      return ['Help given', 'the reply lists the commands pgperf accepts'];
    case 'accept':
      return [
        'Regression accepted',
        `PR #${d.prNumber} at ${short(d.headSha)}: the comment is published again`,
      ];
    case 'attribute':
      return [
        'Attribution requested',
        `PR #${d.prNumber}: ${d.from}..${d.to}, ${d.workloads.join(', ')}; the attribute job replies with the report`,
      ];
    default:
      return [
        'Run requested',
        `PR #${d.prNumber}: ${short(d.headSha)} against ${short(d.baseSha)}, ${d.workloads.join(', ')}`,
      ];
  }
}
