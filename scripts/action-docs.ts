/**
 * The Action reference's inputs/outputs tables (docs/action.md), generated from action.yml (the source of
 * truth) between markers.
 * `npx tsx scripts/update-readme.ts` rewrites them (a script, not the Action: nothing at run time reads it); a
 * test fails when docs/action.md has drifted.
 */
import { parse } from 'yaml';

export const DOCS_START =
  '<!-- action-docs:start (generated from action.yml by scripts/update-readme.ts) -->';
export const DOCS_END = '<!-- action-docs:end -->';

interface ActionYml {
  inputs?: Record<string, { description?: string; default?: string; required?: boolean }>;
  outputs?: Record<string, { description?: string }>;
}

export function renderActionDocs(actionYml: string): string {
  const action = parse(actionYml) as ActionYml;
  const cell = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  const code = (s: string | undefined) => (s === undefined || s === '' ? '' : `\`${s}\``);
  const lines = [
    '| input | default | description |',
    '| --- | --- | --- |',
    ...Object.entries(action.inputs ?? {}).map(
      ([name, i]) => `| \`${name}\` | ${code(i.default)} | ${cell(i.description)} |`,
    ),
    '',
    '| output | description |',
    '| --- | --- |',
    ...Object.entries(action.outputs ?? {}).map(([name, o]) => `| \`${name}\` | ${cell(o.description)} |`),
  ];
  return lines.join('\n');
}

/** The page (docs/action.md) with its generated section replaced. */
export function updateReadme(readme: string, actionYml: string): string {
  const start = readme.indexOf(DOCS_START);
  const end = readme.indexOf(DOCS_END);
  if (start < 0 || end < start)
    throw new Error(`docs/action.md has no ${DOCS_START} ... ${DOCS_END} section`);
  return `${readme.slice(0, start + DOCS_START.length)}\n${renderActionDocs(actionYml)}\n${readme.slice(end)}`;
}
