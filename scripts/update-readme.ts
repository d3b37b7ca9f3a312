// Regenerates the README's action inputs/outputs tables from action.yml: npx tsx scripts/update-readme.ts
import { readFile, writeFile } from 'node:fs/promises';
import { updateReadme } from '../src/adapters/action/docs.js';

const readme = await readFile('README.md', 'utf8');
await writeFile('README.md', updateReadme(readme, await readFile('action.yml', 'utf8')));
