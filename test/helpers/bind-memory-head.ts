/**
 * A PostgreSQL 18 head whose every Bind message allocates and touches 4 MB (the memory regression of issue
 * #44's "Done when"), on a test repository of its own made from the same tarball as the build tests' (so no
 * checkout races with theirs), and built beside the base install of test/helpers/pg18-install.ts. Fixed author
 * and dates (testkit/pg-source.ts), so the sha, and with it the build cache, is the same on every run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildPostgres } from '../../src/postgres/builds/build.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { git, preparePgSourceRepo, testCacheDir } from '../../testkit/pg-source.js';

/** What the head allocates in every Bind. */
export const BIND_BYTES = 4 * 1024 * 1024;

const FILE = 'src/backend/tcop/postgres.c';
const BRANCH = 'bind-memory';
/** The first statement of exec_bind_message after its declarations. */
const ANCHOR = '\t/* Get the fixed part of the message */\n\tportal_name = pq_getmsgstring(input_message);\n';

/**
 * palloc in MessageContext (reset before the next message frees it); the pointer is kept in a global so that
 * neither the allocation nor the memset can be optimised away.
 */
const CHANGE =
  '\t/* pgperf test fixture: 4 MB allocated and touched in every Bind. */\n' +
  `\tpgperf_bind_buffer = palloc(${BIND_BYTES});\n` +
  `\tmemset(pgperf_bind_buffer, 0x5a, ${BIND_BYTES});\n\n`;

export function addBindAllocation(text: string): string {
  const start = text.indexOf('\nexec_bind_message(StringInfo input_message)\n{\n');
  const at = start < 0 ? -1 : text.indexOf(ANCHOR, start);
  if (at < 0) throw new Error(`${FILE}: exec_bind_message's first statement not found where expected`);
  const fn = text.lastIndexOf('\nstatic void\n', start);
  const global = 'char\t   *pgperf_bind_buffer = NULL;\t/* pgperf test fixture */\n';
  return `${text.slice(0, fn + 1)}${global}${text.slice(fn + 1, at)}${CHANGE}${text.slice(at)}`;
}

/** The base and the bind-memory head, both built (a few minutes cold with ccache; found in the cache after). */
export async function bindMemoryInstalls(): Promise<{
  baseBinDir: string;
  headBinDir: string;
  headSha: string;
}> {
  const cacheDir = testCacheDir();
  const dir = path.join(cacheDir, 'repos', 'pg18-memory');
  const source = await preparePgSourceRepo({ major: 18, dir });
  await git(dir, ['checkout', '--quiet', '--force', '-B', BRANCH, 'base']);
  const file = path.join(dir, FILE);
  await writeFile(file, addBindAllocation(await readFile(file, 'utf8')));
  await git(dir, [
    'commit',
    '--quiet',
    '--all',
    '--message',
    'exec_bind_message: allocate and touch 4 MB per Bind',
  ]);
  const headSha = (await git(dir, ['rev-parse', BRANCH])).stdout.trim();
  await git(dir, ['checkout', '--quiet', 'base']);
  const repo = parseRepo(dir, process.cwd());
  const deps = { runner: nodeProcessRunner, logger: memoryLogger() };
  const common = { repo, patches: [], extraOptions: [], cacheDir };
  const base = await buildPostgres({ ...common, label: 'base', ref: source.baseRef }, deps);
  const head = await buildPostgres({ ...common, label: 'head', ref: BRANCH }, deps);
  return { baseBinDir: base.binDir, headBinDir: head.binDir, headSha };
}
