/**
 * Every reader of a results document checks it the one way (src/store/read-results.ts, core/results/
 * check-results.ts): `pgperf compare`, the Action's mode comment (a fork's artifact), `pgperf history`,
 * `pgperf store import`, the directory store's load, listing and save. Each refuses a document that
 * consolidation would refuse (here: a sample twice) naming the file, and warns about an unknown top-level
 * field through its own channel. A file that is not JSON is named with its line and column and never quoted
 * (core/util/json-syntax.ts), whatever the file is.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAction } from '../../src/adapters/action/modes/run-action.js';
import type { ActionContext } from '../../src/adapters/action/context.js';
import { KNOWN_FIELDS } from '../../src/core/results/check-results.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { UserError } from '../../src/core/util/errors.js';
import { findJsonSyntaxFault, jsonSyntaxError } from '../../src/core/util/json-syntax.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { seededRandom } from '../../src/core/stats/seeded-random.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { parseResults } from '../../src/store/read-results.js';
import { syntheticRun } from '../../testkit/synthetic-run.js';
import { parseActionInputs } from '../helpers/action-inputs.js';
import { runMain } from '../helpers/main-in-process.js';

const root = new URL('../../', import.meta.url).pathname;
const FIXTURE = path.join(root, 'test/fixtures/results/pgperf-15-smoke-select-only.json');
const fixtureText = readFileSync(FIXTURE, 'utf8');
const fixture = () => JSON.parse(fixtureText) as RunResult & Record<string, unknown>;
const DUPLICATE =
  /samples\[0\] and samples\[54\] are the same run \(select-only@2 arm head round 1 attempt 1\)/;

let dir: string;
let duplicated: string;
let unknownField: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-readers-'));
  const dup = fixture();
  dup.samples.push(structuredClone(dup.samples[0]!));
  duplicated = path.join(dir, 'dup.json');
  await writeFile(duplicated, JSON.stringify(dup));
  unknownField = path.join(dir, 'newer.json');
  await writeFile(unknownField, JSON.stringify({ ...fixture(), laterField: true }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('every reader checks a results document the one way', () => {
  it('pgperf compare: refused (exit 2) naming the file; an unknown field is a warning on stderr', async () => {
    const ran = await runMain(['compare', duplicated]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(new RegExp(`${duplicated}: ${DUPLICATE.source}`));
    const newer = await runMain(['compare', unknownField, '--json']);
    expect(newer.code).toBe(0);
    expect(newer.stderr).toContain(`warning: ${unknownField}: unknown top-level field 'laterField', ignored`);
  });

  it("pgperf compare: measured samples of a head the file says runs base's code are refused, not passed", async () => {
    const doc = fixture();
    doc.arms[1]!.settingOverrides = {};
    doc.compiledCode = [{ head: 'head', identical: true, files: 973, differingFiles: [], differingCount: 0 }];
    const claimed = path.join(dir, 'claimed.json');
    await writeFile(claimed, JSON.stringify(doc));
    const first = doc.samples.findIndex((s) => s.arm === 'head');
    const ran = await runMain(['compare', claimed]);
    expect(ran.code).toBe(2);
    expect(ran.stdout).not.toMatch(/PASSED/);
    expect(ran.stderr).toContain(
      `${claimed}: compiledCode[0] says arm 'head' runs base's compiled code with base's settings (identical: true), so it is never measured, yet samples[${first}] is a measured run of it`,
    );
  });

  it('pgperf history --results and pgperf store import: refused, nothing rendered or stored', async () => {
    const site = path.join(dir, 'site');
    const history = await runMain(['history', '--results', duplicated, '--out', site]);
    expect(history.code).toBe(2);
    expect(history.stderr).toMatch(DUPLICATE);
    const store = path.join(dir, 'import-store');
    const imported = await runMain(['store', 'import', FIXTURE, duplicated, '--store', store]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toMatch(DUPLICATE);
    expect(await readdir(store).catch(() => [])).toEqual([]);
  });

  it("the Action's mode comment: a fork's artifact is refused before anything is posted", async () => {
    const workspace = path.join(dir, 'workspace');
    await mkdir(path.join(workspace, 'pgperf-results'), { recursive: true });
    await writeFile(path.join(workspace, 'pgperf-results', 'results.json'), readFileSync(duplicated, 'utf8'));
    const ctx: ActionContext = {
      eventName: 'workflow_run',
      payload: {},
      owner: 'pg',
      repo: 'postgres',
      sha: 'c'.repeat(40),
      serverUrl: 'https://github.com',
      workspace,
    };
    const posted: string[] = [];
    const deps = {
      logger: memoryLogger(),
      runner: nodeProcessRunner,
      io: { setOutput: () => {}, writeSummary: async (m: string) => void posted.push(m) },
      cacheDir: path.join(dir, 'cache'),
      actionDir: root,
    };
    const inputs = parseActionInputs({ mode: 'comment', comment: 'false', 'commit-status': 'false' });
    const outcome = runAction(inputs, ctx, deps);
    await expect(outcome).rejects.toBeInstanceOf(UserError);
    await expect(outcome).rejects.toThrow(DUPLICATE);
    expect(posted).toEqual([]);
  });

  it('the directory store: load refuses an edited run, listing skips it with a warning, save refuses it', async () => {
    const warnings: string[] = [];
    const store = await DirStore.open(path.join(dir, 'store'), {
      warn: (m) => warnings.push(m),
      write: true,
    });
    const saved = await store.save(fixture());
    const runFile = path.join(dir, 'store', 'runs', `${saved.id}.json`);
    const edited = { ...fixture(), runId: saved.id };
    edited.samples.push(structuredClone(edited.samples[0]!));
    await writeFile(runFile, JSON.stringify(edited));
    await expect(store.load(saved.id)).rejects.toThrow(new RegExp(`${runFile}: ${DUPLICATE.source}`));
    await rm(path.join(dir, 'store', 'index', `${saved.id}.json`));
    expect(await store.list()).toEqual([]);
    expect(warnings.join('\n')).toMatch(
      new RegExp(`skipping ${runFile}: not a results document this pgperf reads: ${DUPLICATE.source}`),
    );
    await expect(store.save(edited)).rejects.toThrow(DUPLICATE);
    // A corrupt run file is named by position, not quoted.
    await writeFile(runFile, 'SECRET {');
    await expect(store.load(saved.id)).rejects.toThrow(
      `${runFile} is corrupt (not valid JSON: line 1, column 1: an unexpected character (expected a value)); restore it or delete it and its index entry`,
    );
  });

  it('tells runs apart by their exact names, though messages cut long names short', () => {
    const long = (end: string) => `${'x'.repeat(70)}${end}`;
    const doc = fixture();
    const labels: Record<string, string> = { base: long('a'), head: long('b') };
    for (const arm of doc.arms) arm.label = labels[arm.label]!;
    for (const sample of doc.samples) sample.arm = labels[sample.arm]!;
    expect(parseResults(JSON.stringify(doc), 'long.json').samples).toHaveLength(54);
    doc.samples.push(structuredClone(doc.samples[0]!));
    expect(() => parseResults(JSON.stringify(doc), 'long.json')).toThrow(
      `long.json: samples[0] and samples[54] are the same run (select-only@2 arm ${'x'.repeat(63)}… round 1 attempt 1)`,
    );
  });

  it('knows every top-level field pgperf writes: no warning for its own documents', () => {
    for (const doc of [fixture(), syntheticRun({ seed: 1, rounds: 2 })]) {
      expect(Object.keys(doc).filter((k) => !KNOWN_FIELDS.has(k))).toEqual([]);
    }
  });
});

/** Every problem the locator names. */
const PROBLEMS = [
  ...[
    'the end of a string (")',
    'an escape',
    'a value',
    'a property name',
    "':'",
    "',' or '}'",
    "',' or ']'",
  ].map((what) => `the text ends where ${what} was expected`),
  'a control character inside a string (write it escaped)',
  'an invalid escape in a string',
  'an invalid number',
  ...[
    'a value',
    'a property name in double quotes',
    "':' after a property name",
    "',' or '}'",
    "',' or ']'",
  ].map((what) => `an unexpected character (expected ${what})`),
  'more text after the JSON value',
];

describe('a file that is not JSON is named by line and column, never quoted', () => {
  it.each([
    ['', 'line 1, column 1: the text ends where a value was expected'],
    ['root:x:0:0:root:/root:/bin/bash', 'line 1, column 1: an unexpected character (expected a value)'],
    ['{"a": tru}', 'line 1, column 7: an unexpected character (expected a value)'],
    [
      '{\n  "a": 1,\n}',
      'line 3, column 1: an unexpected character (expected a property name in double quotes)',
    ],
    ['{"a" 1}', "line 1, column 6: an unexpected character (expected ':' after a property name)"],
    ['[1, 2', "line 1, column 6: the text ends where ',' or ']' was expected"],
    ['{"a": "b\nc"}', 'line 1, column 9: a control character inside a string (write it escaped)'],
    ['{"a": "\\x"}', 'line 1, column 8: an invalid escape in a string'],
    ['{"a": -x}', 'line 1, column 7: an invalid number'],
    ['{"a": 01}', "line 1, column 8: an unexpected character (expected ',' or '}')"],
    ['{} {}', 'line 1, column 4: more text after the JSON value'],
    ['\ufeff{}', 'line 1, column 1: an unexpected character (expected a value)'],
    ['"open', 'line 1, column 6: the text ends where the end of a string (") was expected'],
  ])('%j: %s', (text, expected) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonSyntaxError(text)).toBe(expected);
    expect(() => parseResults(text, 'r.json')).toThrow(
      `r.json is not valid JSON (${expected}); expected a results document from pgperf run`,
    );
  });

  it('agrees with JSON.parse on 2000 corruptions of a real results file, and quotes none of it', () => {
    const random = seededRandom(33);
    const pick = (n: number) => Math.floor(random() * n);
    const junk = ['', 'x', '"', ',', '}', ']', '{', '\n', '\\', '0', '-', ' ', 'e', '\u0001'];
    for (let i = 0; i < 2000; i++) {
      const at = pick(fixtureText.length);
      const text =
        i % 4 === 0
          ? fixtureText.slice(0, at)
          : fixtureText.slice(0, at) + junk[pick(junk.length)]! + fixtureText.slice(at + pick(3));
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      const fault = findJsonSyntaxFault(text);
      expect(fault === undefined, `corruption ${i} at ${at}`).toBe(parses);
      if (fault) {
        expect(fault.offset).toBeLessThanOrEqual(text.length);
        // Said in fixed words: nothing of the text but where the fault is.
        expect(PROBLEMS).toContain(fault.problem);
        expect(jsonSyntaxError(text)).toBe(`line ${fault.line}, column ${fault.column}: ${fault.problem}`);
      }
    }
  });

  it('a results path that is a symlink to another file does not print that file', async () => {
    const secret = path.join(dir, 'secret.txt');
    await writeFile(secret, 'ghp_0123456789SECRETabcdef\n');
    const link = path.join(dir, 'results-link.json');
    await symlink(secret, link);
    const ran = await runMain(['compare', link]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${link} is not valid JSON (line 1, column 1:`);
    expect(ran.stderr).not.toMatch(/ghp_|SECRET|0123/);
  });
});
