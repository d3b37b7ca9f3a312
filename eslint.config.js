// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { LAYERS } from './scripts/layers.mjs';

/**
 * The import rule of src/: a folder imports only the folders LAYERS allows it (see README "Design"). One
 * block per folder and depth, because a relative import names its target relative to the importing file.
 */
function importRules() {
  const folders = Object.keys(LAYERS);
  const blocks = [];
  for (const [folder, allowed] of Object.entries(LAYERS)) {
    if (allowed === '*') continue;
    const forbidden = folders.filter((f) => f !== folder && !allowed.includes(f));
    if (!forbidden.length) continue;
    const message =
      `src/${folder} may import only ${allowed.length ? allowed.join(', ') : 'no other folder of src'} ` +
      '(scripts/layers.mjs; README "Design")';
    for (const [files, up] of [
      [`src/${folder}/*.ts`, '\\.\\./'],
      [`src/${folder}/*/*.ts`, '\\.\\./\\.\\./'],
    ]) {
      blocks.push({
        files: [files],
        rules: {
          'no-restricted-imports': [
            'error',
            { patterns: [{ regex: `^${up}(${forbidden.join('|')})(/|\\.js$)`, message }] },
          ],
        },
      });
    }
  }
  return blocks;
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'pgperf-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...importRules(),
);
