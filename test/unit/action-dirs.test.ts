/**
 * The Action's directories, refused before anything is built or started, as the CLI's flags are
 * (bad-input-sweep.test.ts): input 'results-dir' of every mode that writes results, the build cache of a mode
 * that builds, and a directory store (input 'store'), each given a path under /proc or /sys, a file or a
 * read-only directory. The modes run for real (mode calibrate with the machine's PostgreSQL, mode benchmark
 * building from source), so a check that does not refuse starts servers or a build and fails the case.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAction } from '../../src/adapters/action/modes/run-action.js';
import { openStore } from '../../src/store/open/open-store.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { UserError } from '../../src/core/util/errors.js';
import { actionContext } from '../helpers/action-events.js';
import { parseActionInputs } from '../helpers/action-inputs.js';
import { badDirectoryPaths, useUnwritablePaths } from '../helpers/unwritable-paths.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

const root = new URL('../../', import.meta.url).pathname;
const paths = useUnwritablePaths('pgperf-action-dirs-');
const { dir: work, readOnly } = paths;

const ctx = actionContext('schedule', { schedule: '5 3 * * 0' }, work);

const BAD_PATHS = badDirectoryPaths('action', paths);

/** The inputs of each case, the bad path set where `bad` is, and the input the refusal must name. */
const CASES: Array<{ name: string; input: string; inputs: (bad: string) => Record<string, string> }> = [
  {
    name: 'mode calibrate, results-dir',
    input: "input 'results-dir'",
    inputs: (bad) => ({ mode: 'calibrate', 'head-bin-dir': installedBinDir(), 'results-dir': bad }),
  },
  {
    name: 'mode benchmark building from source, cache-dir',
    input: "input 'cache-dir'",
    inputs: () => ({ mode: 'benchmark', 'base-ref': 'a', 'head-ref': 'b', 'results-dir': 'out' }),
  },
  {
    name: 'mode calibrate, a directory store',
    input: "input 'store'",
    inputs: (bad) => ({
      mode: 'calibrate',
      'head-bin-dir': installedBinDir(),
      store: bad,
      'results-dir': 'out',
    }),
  },
];

describe("the Action's directories are refused before anything starts", () => {
  const cases = CASES.flatMap((c) => BAD_PATHS.map(([kind, bad]) => ({ ...c, kind, bad })));
  it.each(cases)('$name: $kind', async ({ input, inputs, bad, kind }) => {
    if (bad === undefined) {
      expect(readOnly.ok, kind).toBe(false);
      return;
    }
    const logger = memoryLogger();
    const cacheDir = input === "input 'cache-dir'" ? bad : path.join(work, 'cache');
    const started = Date.now();
    const error = await runAction(
      parseActionInputs({
        comment: 'false',
        'commit-status': 'false',
        ...(input === "input 'cache-dir'" ? { 'cache-dir': bad } : {}),
        ...inputs(bad),
      }),
      ctx,
      {
        logger,
        runner: nodeProcessRunner,
        io: { setOutput: () => {}, writeSummary: async () => {} },
        cacheDir,
        actionDir: root,
        build: () => Promise.reject(new Error('the build started')),
        stores: {
          open: (spec, write) =>
            openStore(spec, { what: "input 'store'", home: work, warn: () => {}, write }),
          tempDir: work,
        },
      },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message.startsWith(input), message).toBe(true);
    expect(message).toContain(bad);
    expect(message).toMatch(/\bE[A-Z]{3,}\b|is a file|is not a directory \(it is a regular file\)/);
    expect(logger.lines.join('\n')).not.toMatch(/initdb|round \d+\/\d+/);
    expect(processesMentioning(work)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
