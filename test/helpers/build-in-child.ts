/**
 * Runs one build (buildPostgres) in a process of its own, started by test/integration/token-scrub.int.test.ts
 * with a fake Action token in its environment, as the runner starts `node dist/index.js`: the token is then
 * in this process's /proc/PID/environ for as long as it runs, where a build step that scans /proc looks.
 *
 * Argument: a JSON object { repo, ref, cacheDir, spy, controlDump }. Before building it runs `spy` as root
 * (the check that the scan finds the token when it may read this process); after, it prints one JSON line:
 * { pid, selfEnvironHasToken, ok, cacheHit?, installDir?, error?, step? }.
 */
import { readFileSync } from 'node:fs';
import { buildPostgres } from '../../src/postgres/builds/build.js';
import { BuildStepError } from '../../src/postgres/builds/builder.js';
import { parseRepo } from '../../src/postgres/builds/source.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';

const args = JSON.parse(process.argv[2] ?? '{}') as {
  repo: string;
  ref: string;
  cacheDir: string;
  spy: string;
  controlDump: string;
};
const token = process.env['INPUT_GITHUB-TOKEN'] ?? '';
const selfEnvironHasToken = token !== '' && readFileSync('/proc/self/environ', 'latin1').includes(token);
// The control: the same scan run as root (this process's user) finds the token in this process.
await nodeProcessRunner.run('sh', [args.spy, args.controlDump]);
let out: Record<string, unknown>;
try {
  const built = await buildPostgres(
    {
      label: 'head',
      repo: parseRepo(args.repo, process.cwd()),
      ref: args.ref,
      patches: [],
      extraOptions: [],
      cacheDir: args.cacheDir,
    },
    { runner: nodeProcessRunner, logger: memoryLogger(), jobs: 1, minFreeBytes: 0 },
  );
  out = { ok: true, cacheHit: built.record.cacheHit, installDir: built.installDir };
} catch (e) {
  out = {
    ok: false,
    error: e instanceof Error ? e.message : String(e),
    ...(e instanceof BuildStepError ? { step: e.step } : {}),
  };
}
process.stdout.write(`${JSON.stringify({ pid: process.pid, selfEnvironHasToken, ...out })}\n`);
