/**
 * The demo ends saying what to run next (#39 item 6), and each "next:" command runs as printed: pasted
 * into bash after the demo saved its run to the default store (`pgperf history` makes the site), after a
 * run saved to a --store directory, and after a run not saved (the mail reply of its results file).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoNext, DEMO_HISTORY_DIR } from '../../../src/flows/compare/demo-comparison.js';
import { demoNextLines } from '../../../src/core/report/terminal/demo-text.js';
import { shellWord } from '../../../src/core/util/shell-word.js';
import { syntheticRun } from '../../../testkit/synthetic-run.js';
import { isolatedEnv } from '../../helpers/cli.js';
import { removePgperfShim, runPasted } from '../../helpers/printed-command.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const tmp = useTmpDir('pgperf-unit-demo-next-', { perTest: true });
afterAll(removePgperfShim);

/** The command of a "next:" line: what follows "next: " (its "# ..." comment is the shell's). */
function commandOf(line: string): string {
  expect(line).toMatch(/^next: pgperf /);
  return line.slice('next: '.length);
}

/** A home with a results file, and the environment whose default store is in that home. */
function home(): { env: NodeJS.ProcessEnv; results: string } {
  const results = path.join(tmp(), 'pgperf-results', 'run-1', 'results.json');
  mkdirSync(path.dirname(results), { recursive: true });
  writeFileSync(results, JSON.stringify(syntheticRun({ seed: 2, rounds: 5, workloads: { demo: [1, 4] } })));
  return { env: isolatedEnv(tmp()), results };
}

describe('pgperf demo: next', () => {
  it('saved to the default store: pgperf history makes the site, and pgperf run --help runs', () => {
    const { env, results } = home();
    expect(runPasted(`pgperf store import '${results}'`, tmp(), env).code).toBe(0);
    const lines = demoNextLines(demoNext({ saved: { store: undefined }, resultsFile: results }));
    expect(lines[0]).toBe(
      `next: pgperf history --out ${DEMO_HISTORY_DIR}   # the stored runs as a web page: open ${DEMO_HISTORY_DIR}/index.html`,
    );
    for (const line of lines) {
      const ran = runPasted(commandOf(line), tmp(), env);
      expect(ran.stderr).not.toMatch(/error/i);
      expect(ran.code).toBe(0);
    }
    expect(existsSync(path.join(tmp(), DEMO_HISTORY_DIR, 'index.html'))).toBe(true);
  });

  it('saved to a --store directory: the same store is named, quoted for the shell', () => {
    const { env, results } = home();
    const store = path.join(tmp(), "my store's dir");
    const imported = runPasted(`pgperf store import --store ${shellWord(store)} '${results}'`, tmp(), env);
    expect(imported.code).toBe(0);
    const [line] = demoNextLines(demoNext({ saved: { store }, resultsFile: results }));
    const ran = runPasted(commandOf(line!), tmp(), env);
    expect(ran.code).toBe(0);
    expect(existsSync(path.join(tmp(), DEMO_HISTORY_DIR, 'index.html'))).toBe(true);
  });

  it('not saved, or saved where the command would show a password: the mail reply of the results file', () => {
    const { env, results } = home();
    for (const saved of [undefined, { store: 'postgresql://me:secret@localhost/pgperf' }]) {
      const [line] = demoNextLines(demoNext({ saved, resultsFile: results }));
      expect(line).not.toContain('secret');
      expect(line).toContain(' --format mail');
      const ran = runPasted(commandOf(line!), tmp(), env);
      // 0 passed, 1 failed: the gate's answer; never 2 (bad input).
      expect([0, 1]).toContain(ran.code);
      expect(ran.stdout).toMatch(/^(PASSED|FAILED|PENDING): /);
    }
  });
});
