import { describe, expect, it } from 'vitest';
import { commandDecision } from '../../../src/flows/steer/command-decision.js';
import { bisectSkipped } from '../../../src/flows/bisect/bisect-gate.js';

describe('the decisions of the modes that measure nothing', () => {
  it('a PR command is decided as what the comment was taken as, and never fails the step', () => {
    const run = commandDecision(
      {
        command: 'run',
        prNumber: 7,
        headSha: 'a'.repeat(40),
        baseSha: 'b'.repeat(40),
        workloads: ['select-only'],
      } as Parameters<typeof commandDecision>[0],
      'regression',
    );
    expect(run).toMatchObject({ flow: 'command', outcome: 'passed', exitCode: 0 });
    expect(run.headline).toEqual({
      lead: 'Run requested',
      detail: 'PR #7: aaaaaaa against bbbbbbb, select-only',
    });
    expect(run.failure).toBeUndefined();
    const refused = commandDecision({ command: 'refused' }, 'inconclusive');
    expect(refused.headline.lead).toBe('Command refused');
    expect(refused.outcome).toBe('passed');
    expect(commandDecision(undefined, 'regression').headline.lead).toBe('No command');
  });

  it('a bisect event with nothing to bisect says why in its decision', () => {
    const d = bisectSkipped('the label added is not pgperf-bisect', 'regression');
    expect(d).toMatchObject({ flow: 'bisect', outcome: 'passed', deciding: [] });
    expect(d.headline).toEqual({ lead: 'Nothing to bisect', detail: 'the label added is not pgperf-bisect' });
  });
});
