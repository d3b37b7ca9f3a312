// Regenerates the Action's inputs/outputs tables in docs/action.md (between the action-docs markers) from
// action.yml: npx tsx scripts/update-readme.ts. The name stays: the markers it writes name this script.
import { readFile, writeFile } from 'node:fs/promises';
import { updateReadme } from './action-docs.js';

const page = 'docs/action.md';
const text = await readFile(page, 'utf8');
await writeFile(page, updateReadme(text, await readFile('action.yml', 'utf8')));
