/**
 * A small HTTP server on 127.0.0.1 that answers the GitHub REST calls pgperf makes the way the real API
 * does (JSON shapes, Link-header pagination, status codes) and records every request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { GitHubApi } from '../../src/github/api.js';
import { octokitApi } from '../../src/github/octokit-api.js';

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  authorization?: string;
}

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string };
  created_at: string;
  updated_at: string;
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: Array<{ name: string }>;
  user: { login: string };
  created_at?: string;
}

export interface FakeGitHub {
  url: string;
  requests: RecordedRequest[];
  /** Comments per issue number. */
  comments: Map<number, FakeComment[]>;
  statuses: Array<{ sha: string; state: string; context: string; description: string }>;
  /** The login behind the token; undefined answers GET /user with 403, as for GITHUB_TOKEN. */
  login: string | undefined;
  mergeBaseSha: string;
  /** Issues by number (GET/POST /repos/o/r/issues, PATCH /repos/o/r/issues/N). */
  issues: Map<number, FakeIssue>;
  /** Head sha per open pull request number (GET /repos/o/r/pulls/N); others answer 404. */
  pullHeads: Map<number, string>;
  /** Pull requests GET /repos/o/r/pulls/N answers as closed. */
  closedPulls: Set<number>;
  /** Role per login (GET /repos/o/r/collaborators/LOGIN/permission); others answer 404 (not a collaborator). */
  permissions: Map<string, string>;
  /** Reactions added (POST /repos/o/r/issues/comments/ID/reactions). */
  reactions: Array<{ commentId: number; content: string }>;
  /** Answer matching requests with this status (e.g. 403 for a fork's read-only token). */
  refuse: Array<{ method: string; pathPattern: RegExp; status: number }>;
  addComment(issue: number, login: string, body: string): FakeComment;
  /** Edits a comment as its author would: new body, a later updated_at. */
  editComment(id: number, body: string): void;
  close(): Promise<void>;
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  let nextId = 1000;
  const fake = {
    url: '',
    close: async () => {},
    requests: [],
    comments: new Map(),
    statuses: [],
    login: 'pgperf-bot',
    mergeBaseSha: 'b'.repeat(40),
    pullHeads: new Map(),
    closedPulls: new Set(),
    permissions: new Map(),
    reactions: [],
    issues: new Map(),
    refuse: [],
    addComment(issue: number, login: string, body: string) {
      const at = new Date(Date.UTC(2026, 0, 1) + nextId * 1000).toISOString();
      const comment = { id: nextId++, body, user: { login }, created_at: at, updated_at: at };
      fake.comments.set(issue, [...(fake.comments.get(issue) ?? []), comment]);
      return comment;
    },
    editComment(id: number, body: string) {
      for (const list of fake.comments.values()) {
        const comment = list.find((c) => c.id === id);
        if (comment) {
          comment.body = body;
          comment.updated_at = new Date(Date.parse(comment.updated_at) + 60_000).toISOString();
          return;
        }
      }
      throw new Error(`fake GitHub: no comment ${id}`);
    },
  } as FakeGitHub;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text ? JSON.parse(text) : undefined;
      fake.requests.push({
        method: req.method ?? '',
        path: url.pathname + url.search,
        body,
        authorization: req.headers.authorization,
      });
      const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(data));
      };
      const refused = fake.refuse.find((r) => r.method === req.method && r.pathPattern.test(url.pathname));
      if (refused)
        return send(refused.status, {
          message: refused.status === 403 ? 'Resource not accessible by integration' : 'Not Found',
        });

      let m: RegExpExecArray | null;
      if (req.method === 'GET' && url.pathname === '/user') {
        return fake.login
          ? send(200, { login: fake.login, type: 'User' })
          : send(403, { message: 'Resource not accessible by integration' });
      }
      if (/^\/repos\/[^/]+\/[^/]+\/issues$/.test(url.pathname)) {
        if (req.method === 'GET') {
          const label = url.searchParams.get('labels');
          const state = url.searchParams.get('state') ?? 'open';
          const all = [...fake.issues.values()].filter(
            (i) =>
              (!label || i.labels.some((l) => l.name === label)) && (state === 'all' || i.state === state),
          );
          return send(200, all);
        }
        if (req.method === 'POST') {
          const b = body as { title: string; body: string; labels?: string[] };
          const issue: FakeIssue = {
            number: 500 + fake.issues.size,
            title: b.title,
            body: b.body,
            state: 'open',
            labels: (b.labels ?? []).map((name) => ({ name })),
            user: { login: fake.login ?? 'github-actions[bot]' },
            created_at: new Date().toISOString(),
          };
          fake.issues.set(issue.number, issue);
          return send(201, issue);
        }
      }
      if (req.method === 'PATCH' && (m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)$/.exec(url.pathname))) {
        const issue = fake.issues.get(Number(m[1]));
        if (!issue) return send(404, { message: 'Not Found' });
        Object.assign(issue, body as Partial<FakeIssue>);
        return send(200, issue);
      }
      if (req.method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(url.pathname))) {
        const n = Number(m[1]);
        const head = fake.pullHeads.get(n);
        return head
          ? send(200, {
              number: n,
              state: fake.closedPulls.has(n) ? 'closed' : 'open',
              head: { sha: head, ref: `pr-${n}` },
              base: { sha: 'c'.repeat(40), ref: 'master' },
            })
          : send(404, { message: 'Not Found' });
      }
      if (
        req.method === 'GET' &&
        (m = /^\/repos\/[^/]+\/[^/]+\/collaborators\/([^/]+)\/permission$/.exec(url.pathname))
      ) {
        const role = fake.permissions.get(decodeURIComponent(m[1]!));
        if (!role) return send(404, { message: 'Not Found' });
        const legacy = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
        return send(200, { permission: legacy, role_name: role, user: { login: m[1] } });
      }
      if (
        req.method === 'POST' &&
        (m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)\/reactions$/.exec(url.pathname))
      ) {
        const content = (body as { content: string }).content;
        fake.reactions.push({ commentId: Number(m[1]), content });
        return send(201, { id: fake.reactions.length, content });
      }
      if (req.method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/compare\/(.+)$/.exec(url.pathname))) {
        return send(200, { merge_base_commit: { sha: fake.mergeBaseSha }, status: 'ahead', commits: [] });
      }
      if ((m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(url.pathname))) {
        const issue = Number(m[1]);
        if (req.method === 'GET') {
          const all = fake.comments.get(issue) ?? [];
          const perPage = Number(url.searchParams.get('per_page') ?? 30);
          const page = Number(url.searchParams.get('page') ?? 1);
          const last = Math.max(1, Math.ceil(all.length / perPage));
          const link = (p: number) => {
            const u = new URL(url);
            u.searchParams.set('page', String(p));
            return u.toString();
          };
          const links = [];
          if (page < last) links.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
          return send(
            200,
            all.slice((page - 1) * perPage, page * perPage),
            links.length ? { link: links.join(', ') } : {},
          );
        }
        if (req.method === 'POST') {
          const login = fake.login ?? 'github-actions[bot]';
          return send(201, fake.addComment(issue, login, (body as { body: string }).body));
        }
      }
      if (
        req.method === 'PATCH' &&
        (m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(url.pathname))
      ) {
        const id = Number(m[1]);
        for (const list of fake.comments.values()) {
          const comment = list.find((c) => c.id === id);
          if (comment) {
            comment.body = (body as { body: string }).body;
            comment.updated_at = new Date(Date.parse(comment.updated_at) + 1000).toISOString();
            return send(200, comment);
          }
        }
        return send(404, { message: 'Not Found' });
      }
      if (
        req.method === 'POST' &&
        (m = /^\/repos\/[^/]+\/[^/]+\/statuses\/([0-9a-f]+)$/.exec(url.pathname))
      ) {
        const s = body as { state: string; context: string; description: string };
        fake.statuses.push({ sha: m[1]!, state: s.state, context: s.context, description: s.description });
        return send(201, { id: fake.statuses.length, ...s });
      }
      return send(404, { message: `fake GitHub: no route for ${req.method} ${url.pathname}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}

/**
 * A fake GitHub for a test file (started before its tests, closed after) acting as `login`, and octokit
 * clients on it for owner/repo pg/postgres without retries.
 */
export function useFakeGitHubApi(login = 'pgperf-bot'): { gh: () => FakeGitHub; api: () => GitHubApi } {
  let gh: FakeGitHub | undefined;
  beforeAll(async () => {
    gh = await startFakeGitHub();
    gh.login = login;
  });
  afterAll(async () => {
    await gh?.close();
  });
  return {
    gh: () => gh!,
    api: () =>
      octokitApi({ token: 't', baseUrl: gh!.url, owner: 'pg', repo: 'postgres', retry: { retries: 0 } }),
  };
}
