/**
 * The repository's own workflows (.github/workflows/*.yml) pass actionlint, linted the way the workflow examples
 * of the docs are (test/helpers/actionlint.ts: the self-hosted labels of docs/runner.md, nothing else set).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lintWorkflow, loadActionlint, type RunLint } from '../../helpers/actionlint.js';
import { REPO_ROOT } from '../../helpers/doc-pages.js';

const dir = path.join(REPO_ROOT, '.github/workflows');
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .map((f) => `.github/workflows/${f}`);
let runLint: RunLint;

describe('actionlint over .github/workflows', () => {
  beforeAll(() => {
    runLint = loadActionlint();
  });

  it('finds the workflows, the release workflow among them', () => {
    expect(files).toContain('.github/workflows/release.yml');
  });

  it.each(files)('%s passes actionlint', async (file) => {
    const errors = await lintWorkflow(runLint, readFileSync(path.join(REPO_ROOT, file), 'utf8'), file);
    expect(errors.map((e) => `${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`)).toEqual([]);
  });

  it('would report a broken copy of the release workflow (the lint reads shell and expressions too)', async () => {
    const text = readFileSync(path.join(dir, 'release.yml'), 'utf8')
      .replace('needs: test', 'needs: tests')
      .replace('TAG: ${{ github.ref_name }}', 'TAG: ${{ github.ref_nam }}');
    const errors = await lintWorkflow(runLint, text, '.github/workflows/release.yml');
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('job "release" needs job "tests" which does not exist'),
      expect.stringContaining('property "ref_nam" is not defined'),
    ]);
  });
});
