/**
 * octokitApi against a loopback HTTP server that misbehaves the way GitHub does: a 502 before the
 * answer, a 429 with retry-after, a 403 with x-ratelimit-remaining: 0 (a primary rate limit), a
 * secondary rate limit, and a plain 403 (a missing permission). Retry waits are made tiny.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { apiFailureHint, GitHubApiError } from '../../src/github/api.js';
import { octokitApi } from '../../src/github/octokit-api.js';
import { chooseCommits, type ActionContext } from '../../src/adapters/action/context.js';
import { parseInputs } from '../../src/adapters/action/inputs.js';

interface Scripted {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Answers requests in order from `script`, repeating the last answer; records the paths. */
async function scriptedServer(script: Scripted[]): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(`${req.method} ${req.url}`);
      const answer = script[Math.min(hits.length - 1, script.length - 1)]!;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, hits };
}

const fast = { backoffUnitMs: 1, rateLimitUnitMs: 1 };
const ok = { status: 201, body: { id: 7, body: 'hi', user: { login: 'bot' } } };

function api(url: string) {
  return octokitApi({ token: 't', baseUrl: url, owner: 'o', repo: 'r', retry: fast });
}

describe('GitHub API resilience', () => {
  it('retries a 502 and succeeds', async () => {
    const gh = await scriptedServer([{ status: 502, body: { message: 'Bad Gateway' } }, ok]);
    const comment = await api(gh.url).createComment(1, 'hi');
    expect(comment.id).toBe(7);
    expect(gh.hits).toHaveLength(2);
  });

  it('retries a 429 with retry-after and succeeds', async () => {
    const gh = await scriptedServer([
      { status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': '1' } },
      ok,
    ]);
    expect((await api(gh.url).createComment(1, 'hi')).id).toBe(7);
    expect(gh.hits.length).toBeGreaterThanOrEqual(2);
  });

  it('gives up on 5xx after the retries, as a server error', async () => {
    const gh = await scriptedServer([{ status: 503, body: { message: 'Service Unavailable' } }]);
    const e = await api(gh.url)
      .createComment(1, 'hi')
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(GitHubApiError);
    expect((e as GitHubApiError).kind).toBe('server');
    expect(gh.hits).toHaveLength(4); // the call and 3 retries
  });

  it('reports a primary rate limit (403, x-ratelimit-remaining: 0) as a rate limit, not a permission', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600; // an hour away: not waited out
    const gh = await scriptedServer([
      {
        status: 403,
        body: { message: 'API rate limit exceeded for installation ID 1.' },
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      },
    ]);
    const e = (await api(gh.url)
      .setCommitStatus('a'.repeat(40), { state: 'success', context: 'c', description: 'd' })
      .catch((err: unknown) => err)) as GitHubApiError;
    expect(e).toBeInstanceOf(GitHubApiError);
    expect(e.kind).toBe('rate-limit');
    expect(e.message).toMatch(/rate limit exceeded \(HTTP 403\); it resets at/);
    expect(apiFailureHint(e, 'statuses: write')).toMatch(/rate limit was hit \(not a permission problem\)/);
  });

  it('waits out a short rate limit and succeeds', async () => {
    const reset = Math.floor(Date.now() / 1000); // resets now: retry after ~1 s (1 ms here)
    const gh = await scriptedServer([
      {
        status: 403,
        body: { message: 'API rate limit exceeded' },
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      },
      ok,
    ]);
    expect((await api(gh.url).createComment(1, 'hi')).id).toBe(7);
    expect(gh.hits).toHaveLength(2);
  });

  it('retries a secondary rate limit', async () => {
    const gh = await scriptedServer([
      {
        status: 403,
        body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
        headers: { 'retry-after': '2' },
      },
      ok,
    ]);
    expect((await api(gh.url).createComment(1, 'hi')).id).toBe(7);
    expect(gh.hits).toHaveLength(2);
  });

  it('a plain 403 is a missing permission, not retried', async () => {
    const gh = await scriptedServer([
      { status: 403, body: { message: 'Resource not accessible by integration' } },
    ]);
    const e = (await api(gh.url)
      .createComment(1, 'hi')
      .catch((err: unknown) => err)) as GitHubApiError;
    expect(e.kind).toBe('permission');
    expect(apiFailureHint(e, 'pull-requests: write')).toMatch(/lacks 'pull-requests: write'/);
    expect(gh.hits).toHaveLength(1);
  });

  it('a failing merge-base lookup says to set base-ref', async () => {
    const gh = await scriptedServer([{ status: 404, body: { message: 'Not Found' } }]);
    const ctx: ActionContext = {
      eventName: 'pull_request',
      payload: {
        pull_request: {
          number: 3,
          head: { sha: 'a'.repeat(40), ref: 'x' },
          base: { sha: 'b'.repeat(40), ref: 'main' },
        },
      },
      owner: 'o',
      repo: 'r',
      sha: 'a'.repeat(40),
      serverUrl: 'https://github.com',
      workspace: '/tmp',
    };
    const inputs = parseInputs((name) => ({ 'github-token': 't' })[name] ?? '');
    await expect(chooseCommits(ctx, inputs, api(gh.url))).rejects.toThrow(
      /merge-base of main and the PR head .*Not Found.*set the input 'base-ref'/,
    );
  });
});

describe('an API that accepts and never answers', () => {
  it('times a request out, retries it, then reports it: the job is not held until GitHub cancels it', async () => {
    const hits: string[] = [];
    const held: http.ServerResponse[] = [];
    server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      held.push(res); // never answered
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const gh = octokitApi({
      token: 't',
      baseUrl: url,
      owner: 'o',
      repo: 'r',
      retry: { ...fast, retries: 1 },
      requestTimeoutMs: 200,
    });
    const started = Date.now();
    await expect(gh.createComment(1, 'hi')).rejects.toBeInstanceOf(GitHubApiError);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hits.length).toBeGreaterThanOrEqual(1);
    for (const res of held) res.destroy();
  });
});
