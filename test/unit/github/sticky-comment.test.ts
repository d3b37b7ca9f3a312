/**
 * The sticky comment against the loopback fake of the GitHub API: found among the token login's own
 * comments by its marker (the oldest after a race), updated in place, left alone when the body function
 * says so; the login asked of the API once per client, a failure not remembered.
 */
import { describe, expect, it } from 'vitest';
import { findStickyComment, upsertStickyComment } from '../../../src/github/sticky-comment.js';
import { useFakeGitHub } from '../../helpers/fake-github-per-test.js';

const fake = useFakeGitHub();
const MARKER = '<!-- pgperf:comment-id=default -->';
const userRequests = () => fake.gh.requests.filter((r) => r.path === '/user').length;

describe('upsertStickyComment', () => {
  it("updates the login's oldest marked comment in place, leaves a look-alike by someone else alone", async () => {
    const api = fake.api();
    fake.gh.addComment(7, 'someone-else', `${MARKER}\nforged`);
    const first = fake.gh.addComment(7, 'pgperf-bot', `${MARKER}\nold`);
    fake.gh.addComment(7, 'pgperf-bot', `${MARKER}\nraced`);
    const done = await upsertStickyComment(api, { issueNumber: 7, marker: MARKER, body: `${MARKER}\nnew` });
    expect(done).toMatchObject({ action: 'updated', comment: { id: first.id } });
    expect(fake.gh.comments.get(7)!.map((c) => c.body.split('\n')[1])).toEqual(['forged', 'new', 'raced']);
    const kept = await upsertStickyComment(api, { issueNumber: 7, marker: MARKER, body: () => undefined });
    expect(kept.action).toBe('kept');
    expect(findStickyComment([], 'pgperf-bot', MARKER)).toBeUndefined();
  });

  it('asks the API for the login once per client; a failed answer is asked again', async () => {
    const api = fake.api();
    expect(await api.viewerLogin()).toBe('pgperf-bot');
    expect(await api.viewerLogin()).toBe('pgperf-bot');
    expect(userRequests()).toBe(1);
    fake.gh.refuse.push({ method: 'GET', pathPattern: /^\/user$/, status: 500 });
    const failing = fake.api();
    await expect(failing.viewerLogin()).rejects.toThrow();
    fake.gh.refuse.length = 0;
    expect(await failing.viewerLogin()).toBe('pgperf-bot');
  });
});
