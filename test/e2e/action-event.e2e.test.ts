/**
 * The built action (dist/index.js) on a broken event: an event file that is not JSON is one error line
 * naming GITHUB_EVENT_PATH's file, not a SyntaxError stack (the GitHub client library parses the file when
 * it is loaded, so it is loaded only after the event was read); a pull_request event whose payload names no
 * PR is refused naming the event, the file and the missing fields, before anything is measured, instead of
 * running and then saying "not a pull_request event".
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltAction } from '../helpers/action-run.js';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-e2e-event-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const inputs = {
  mode: 'benchmark',
  'base-bin-dir': '/nonexistent/base/bin',
  'head-bin-dir': '/nonexistent/head/bin',
  'github-token': 'test-token',
  comment: 'true',
  'commit-status': 'true',
};

describe('the action on a broken event', () => {
  it('an event file that is not JSON: one error naming GITHUB_EVENT_PATH and the file, no stack', async () => {
    const eventFile = path.join(tmp, 'event.json');
    await writeFile(eventFile, '{"action": "synchronize", "number": 7,');
    const ran = await runBuiltAction(inputs, {
      workspace: tmp,
      apiUrl: 'http://127.0.0.1:9',
      event: {},
      eventName: 'pull_request',
      sha: 'a'.repeat(40),
      env: { GITHUB_EVENT_PATH: eventFile },
    });
    expect(ran.code).toBe(1);
    const errors = ran.stdout.split('\n').filter((l) => l.startsWith('::error::'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^::error::GITHUB_EVENT_PATH ${eventFile.replace(/[.]/g, '\\.')}: the event payload is not JSON \\(.*\\); expected the JSON file the runner writes$`,
      ),
    );
    expect(ran.stdout).not.toMatch(/SyntaxError|^\s+at /m);
  });

  it('a pull_request event without its pull_request: refused before anything runs, naming what is missing', async () => {
    const ran = await runBuiltAction(inputs, {
      workspace: tmp,
      apiUrl: 'http://127.0.0.1:9',
      event: { action: 'synchronize', number: 7 },
      eventName: 'pull_request',
      sha: 'a'.repeat(40),
    });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(
      /::error::the 'pull_request' event is about a pull request, but the event payload GITHUB_EVENT_PATH \S+event\.json has no pull_request\.number, pull_request\.head\.sha, pull_request\.base\.sha; expected the payload GitHub writes for a pull request/,
    );
    expect(ran.stdout).not.toMatch(/not a pull_request event/);
    expect(ran.stdout).not.toMatch(/::group::Benchmark/);
  });
});
