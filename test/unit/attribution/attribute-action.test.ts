/**
 * mode attribute of the Action: its inputs through the real parsing (action.yml's defaults, then the
 * workflow's values), the flow's request they make (base-ref is --from, head-ref --to), and its gate from a
 * report of the faked flow (an attribution passes when it completes; its verdict says which way the ends
 * moved).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributionRequestOf } from '../../../src/adapters/action/modes/attribute-mode.js';
import { attributionDecision } from '../../../src/flows/attribute/attribution-gate.js';
import { runAttribution } from '../../../src/flows/attribute/attribution-flow.js';
import { actionContext, scheduleEvent } from '../../helpers/action-events.js';
import { parseActionInputs } from '../../helpers/action-inputs.js';
import { attributionFakes, attributionRequest, sha } from '../../helpers/attribution-fakes.js';

const root = new URL('../../../', import.meta.url).pathname;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'attribute-action-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RANGE = { mode: 'attribute', 'base-ref': 'REL_17_0', 'head-ref': 'REL_18_0' };

describe('mode attribute', () => {
  it('reads base-ref as the older end and head-ref as the newer, with the build and counting inputs', async () => {
    const inputs = parseActionInputs({
      ...RANGE,
      'build-options': '-Dcassert=false',
      'instruction-counter': 'cachegrind',
      repo: 'https://github.com/postgres/postgres.git',
    });
    expect(inputs.mode).toBe('attribute');
    const ctx = actionContext('schedule', scheduleEvent('0 3 * * *'), dir);
    const req = await attributionRequestOf(inputs, ctx, root, '/cache', path.join(dir, 'out'));
    expect(req).toMatchObject({
      from: 'REL_17_0',
      to: 'REL_18_0',
      cacheDir: '/cache',
      extraOptions: ['-Dcassert=false'],
      instructionCounter: { counter: 'cachegrind' },
      maxCommits: 40,
      outDir: path.join(dir, 'out'),
    });
    expect(req.repo.url).toBe('https://github.com/postgres/postgres.git');
    expect(req.workloads.map((w) => w.name)).toEqual(['select-only']);
  });

  it('needs both ends, naming the missing input', () => {
    expect(() => parseActionInputs({ mode: 'attribute', 'base-ref': 'REL_17_0' })).toThrow(
      "mode attribute names the commits between 'base-ref' (the older end) and 'head-ref' (the newer end, base-ref on its first-parent line): set 'head-ref'",
    );
    expect(() => parseActionInputs({ mode: 'attribute' })).toThrow(/set 'base-ref' and 'head-ref'/);
  });

  it('refuses the inputs of a timed comparison or of pre-built installs, naming them', () => {
    expect(() => parseActionInputs({ ...RANGE, rounds: '5', duration: '10' })).toThrow(
      "mode attribute builds every commit it counts from source and counts instructions, it runs no timed rounds: remove 'rounds', 'duration'",
    );
    expect(() => parseActionInputs({ ...RANGE, 'base-bin-dir': '/a', 'head-bin-dir': '/b' })).toThrow(
      /remove 'base-bin-dir', 'head-bin-dir'/,
    );
  });

  it('needs no github-token: it posts no comment and no status', () => {
    expect(parseActionInputs({ ...RANGE, 'github-token': '' }).mode).toBe('attribute');
  });

  it('passes when the attribution completes, its verdict the way the ends moved, the culprits deciding', async () => {
    const up = await runAttribution(
      attributionRequest(path.join(dir, 'cache'), path.join(dir, 'up')),
      attributionFakes(12, { 3: 900, 10: -400 }).deps,
    );
    const d = attributionDecision(up, 'regression');
    expect(d).toMatchObject({ flow: 'attribute', verdict: 'regression', outcome: 'passed', exitCode: 0 });
    expect(d.deciding).toEqual([sha(3), sha(10)]);
    expect(d.headline.lead).toBe('2 commits named');
    const down = await runAttribution(
      attributionRequest(path.join(dir, 'cache'), path.join(dir, 'down')),
      attributionFakes(6, { 2: -900 }).deps,
    );
    expect(attributionDecision(down, 'inconclusive')).toMatchObject({
      verdict: 'improvement',
      outcome: 'passed',
    });
  });
});
