/** The Action's inputs as the runner fills them: action.yml's defaults, then what a workflow sets. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseInputs, type ActionInputs } from '../../src/adapters/action/inputs.js';

const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
};

/** Every input action.yml declares, with its default ('' where it has none). */
export const ACTION_INPUT_DEFAULTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? '']),
);

/** parseInputs of the defaults with github-token 'token', then `overrides`; an undeclared input reads ''. */
export function parseActionInputs(overrides: Record<string, string>): ActionInputs {
  const values: Record<string, string> = { ...ACTION_INPUT_DEFAULTS, 'github-token': 'token', ...overrides };
  return parseInputs((name) => values[name] ?? '');
}
