/** What started a run, said under the comment's headline (src/adapters/action/trigger.ts). */
import { describe, expect, it } from 'vitest';
import { triggerText } from '../../../src/core/report/trigger-note.js';
import { triggerOf } from '../../../src/adapters/action/trigger.js';
import type { ActionContext } from '../../../src/adapters/action/context.js';

const ctx = (eventName: string, payload: unknown) => ({ eventName, payload }) as unknown as ActionContext;

describe('triggerOf / triggerText', () => {
  it('names the command and its author from the comment event', () => {
    const t = triggerOf(
      ctx('issue_comment', { comment: { body: '/pgperf run rounds=2', user: { login: 'alice' } } }),
    );
    expect(t).toEqual({ what: '/pgperf run rounds=2', by: 'alice' });
    expect(triggerText(t)).toBe('/pgperf run rounds=2 by @alice');
  });

  it("escapes a command's words (a reason is anyone's text) but mentions the login GitHub vouches for", () => {
    const body = '/pgperf accept tpcb@64 ok per @org/team, see https://evil.example [x](y) **bold**';
    const text = triggerText(triggerOf(ctx('issue_comment', { comment: { body, user: { login: 'bob' } } })));
    expect(text.endsWith(' by @bob')).toBe(true);
    const words = text.slice(0, -' by @bob'.length);
    expect(words).not.toContain('@org/team');
    expect(words).not.toContain('https://evil.example');
    expect(words).not.toMatch(/\[x\]\(y\)|\*\*bold\*\*/);
  });

  it('leaves out a login that is no GitHub login, and says the label and the push', () => {
    expect(
      triggerOf(
        ctx('pull_request', { action: 'labeled', label: { name: 'perf' }, sender: { login: 'x y' } }),
      ),
    ).toEqual({
      what: 'label perf added',
    });
    expect(
      triggerText(triggerOf(ctx('pull_request', { action: 'synchronize', sender: { login: 'carol' } }))),
    ).toBe('a push to the PR by @carol');
    expect(triggerText(undefined)).toBe('this workflow');
  });
});
