/**
 * The gate flags every deciding command shares (--fail-on) and the exit codes they document: one
 * definition, the same values and default as the Action's input `fail-on` (src/core/compare/decision/policy.ts).
 */
import { Command, Option } from 'commander';
import { EXIT_CODES } from '../../core/compare/decision/decision.js';
import {
  DEFAULT_FAIL_ON,
  FAIL_ON,
  FAIL_ON_MEANING,
  type FailOn,
} from '../../core/compare/decision/policy.js';
import { oneOf } from './flag-parsers.js';

export interface FailOnFlags {
  failOn: FailOn;
}

/** The exit codes in words, for every gating command's help. */
export const EXIT_CODES_HELP = `
Exit codes:
  ${EXIT_CODES.passed}  passed (no regression under --fail-on, or --fail-on never)
  ${EXIT_CODES.failed}  the gate failed (--fail-on regression: a certified or likely regression; inconclusive: also an undecided cell)
  ${EXIT_CODES.usage}  usage or input error (nothing was measured)
  ${EXIT_CODES.incomplete}  the run could not complete (failed, or no usable sample; for compare, also the results of an
     interrupted run); results so far are kept
  130, 143  stopped by Ctrl-C (SIGINT) or SIGTERM; what was measured is kept (results.json says interrupted)`;

export function addFailOnOption(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--fail-on <when>',
        `when the exit code says the gate failed: ${FAIL_ON.map((v) => `${v} (${FAIL_ON_MEANING[v]})`).join('; ')}`,
      )
        .argParser(oneOf('--fail-on', FAIL_ON))
        .default(DEFAULT_FAIL_ON),
    )
    .addHelpText('after', EXIT_CODES_HELP);
}
