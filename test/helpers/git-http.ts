/**
 * A git smart-HTTP server on 127.0.0.1 for data-branch tests: `git http-backend` (CGI) over the bare
 * repositories in `root`, answering only requests that carry the expected HTTP basic credentials (401
 * otherwise, as GitHub does), so a test proves that git authenticated and how. `hold` can keep a request
 * waiting (to cancel a run in the middle of a fetch or a push). Stopped by close().
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';

export interface GitHttpRequest {
  method: string;
  /** Path and query, e.g. /pg/postgres.git/info/refs?service=git-upload-pack. */
  url: string;
  /** The Authorization header as received (undefined: none). */
  authorization: string | undefined;
  authorized: boolean;
}

export interface GitHttpServer {
  /** http://127.0.0.1:PORT (the server URL; repositories are /OWNER/NAME.git under it). */
  url: string;
  requests: GitHttpRequest[];
  /** Called before an authorized request is served; the request waits until the promise settles. */
  hold?: (request: GitHttpRequest) => Promise<void> | void;
  close(): Promise<void>;
}

export async function startGitHttpServer(options: {
  /** Directory of the bare repositories (GIT_PROJECT_ROOT). */
  root: string;
  username: string;
  password: string;
}): Promise<GitHttpServer> {
  const expected = `basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const sockets = new Set<Socket>();
  const state: GitHttpServer = {
    url: '',
    requests: [],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const authorization = req.headers.authorization;
    const request: GitHttpRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization,
      authorized: authorization?.toLowerCase() === expected.toLowerCase(),
    };
    state.requests.push(request);
    if (!request.authorized) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    void Promise.resolve(state.hold?.(request)).then(
      () => serve(req, res, options),
      () => {
        req.resume();
        res.writeHead(503, { 'Content-Type': 'text/plain' });
        res.end('held and dropped\n');
      },
    );
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** One request through `git http-backend` (CGI: environment in, headers and body out). */
function serve(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: { root: string; username: string },
): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: options.root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    REMOTE_USER: options.username,
    REMOTE_ADDR: '127.0.0.1',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
    ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
    ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
  };
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(child.stdin);
  child.stdin.on('error', () => {});
  const out: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.on('close', () => {
    const all = Buffer.concat(out);
    const end = all.indexOf('\r\n\r\n') >= 0 ? all.indexOf('\r\n\r\n') : all.indexOf('\n\n');
    const sep = all.indexOf('\r\n\r\n') >= 0 ? 4 : 2;
    const head = all.subarray(0, Math.max(0, end)).toString('utf8');
    const body = end >= 0 ? all.subarray(end + sep) : Buffer.alloc(0);
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]) || 500;
      else headers[name] = value;
    }
    if (res.destroyed) return;
    res.writeHead(status, headers);
    res.end(body);
  });
}

/**
 * Every file under `dir` (recursively, symlinks not followed) whose bytes contain one of `secrets`, as
 * "path: secret #i"; none when `dir` does not exist. For "no secret on disk" checks.
 */
export async function filesHolding(dir: string, secrets: readonly string[]): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      continue; // removed while we looked
    }
    for (const [i, secret] of secrets.entries()) {
      if (secret && bytes.includes(secret)) found.push(`${file}: secret #${i}`);
    }
  }
  return found;
}

/**
 * Processes (other than this one) whose environment holds one of `secrets`, as "pid: secret #i": a child
 * that outlived pgperf with the token (as root every process is read, else this user's). For "no token in
 * a child's environment" checks.
 */
export function environmentsHolding(secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    if (Number(pid) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      continue; // gone, or not ours to read
    }
    for (const [i, secret] of secrets.entries()) {
      if (secret && environ.includes(secret)) found.push(`${pid}: secret #${i}`);
    }
  }
  return found;
}
