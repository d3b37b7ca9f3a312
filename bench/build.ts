/**
 * Build speed: a cold build (empty cache and ccache), a cache hit, and a head build that differs from
 * the already-built base by one .c file, with ccache hit rates. Real PostgreSQL source (the release
 * tarball from Debian's source archive, see testkit/pg-source.ts).
 *
 *   npx tsx bench/build.ts [--major 18|15] [--cache-dir DIR] [--warm]
 *
 * --cache-dir: the bench's own cache (default $PGPERF_BENCH_CACHE or /var/cache/pgperf-bench); it is
 * wiped for the cold build, so never point it at a cache in use. --warm: skip the wipe (the "cold"
 * build is then whatever the cache holds). Targets on a 2-core machine: cache hit < 15 s, one-file head
 * build < 90 s, cold bounded by the compiler.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { BuiltInstall } from '../src/postgres/builds/build-record.js';
import { buildPostgres } from '../src/postgres/builds/build.js';
import { parseRepo } from '../src/postgres/builds/source.js';
import { consoleLogger } from '../src/core/util/logger.js';
import { nodeProcessRunner } from '../src/machine/os/process.js';
import { preparePgSourceRepo } from '../testkit/pg-source.js';

const TARGETS_S = { hit: 15, oneFile: 90 };

const { values } = parseArgs({
  options: {
    major: { type: 'string', default: '18' },
    'cache-dir': { type: 'string', default: process.env.PGPERF_BENCH_CACHE ?? '/var/cache/pgperf-bench' },
    warm: { type: 'boolean', default: false },
  },
});
const cacheDir = path.resolve(values['cache-dir']);
const logger = consoleLogger();
const deps = { runner: nodeProcessRunner, logger };

async function timed(label: string, fn: () => Promise<BuiltInstall>) {
  const t0 = Date.now();
  const built = await fn();
  const s = (Date.now() - t0) / 1000;
  return { label, s, built };
}

async function main() {
  if (!values.warm) {
    logger.info(`bench: wiping ${cacheDir} for a cold build`);
    await rm(cacheDir, { recursive: true, force: true });
  }
  // A fresh head variant per run, so head is never an install cache hit (and its changed file misses).
  const repo = await preparePgSourceRepo({
    major: Number(values.major),
    dir: path.join(cacheDir, 'repos', `pg${values.major}`),
    variant: Date.now() % 1_000_000_000,
  });
  const request = (label: string, ref: string) => ({
    label,
    repo: parseRepo(repo.dir, process.cwd()),
    ref,
    patches: [],
    extraOptions: [],
    cacheDir,
  });
  const rows = [
    await timed(values.warm ? 'base (warm)' : 'cold base build', () =>
      buildPostgres(request('base', 'base'), deps),
    ),
    await timed('cache hit (base again)', () => buildPostgres(request('base', 'base'), deps)),
    await timed('head, one .c file changed', () => buildPostgres(request('head', 'head'), deps)),
  ];

  const lines = [
    '',
    `PostgreSQL ${values.major} (${path.basename(repo.tarball)}), ${rows[0]!.built.record.buildSystem}, cache ${cacheDir}`,
    'step                          wall s   phases (s)                                                               ccache hits',
  ];
  for (const r of rows) {
    const rec = r.built.record;
    const phases = rec.cacheHit
      ? 'cache hit'
      : Object.entries(rec.durationsS)
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', ');
    const cc =
      rec.cacheHit || !rec.ccache
        ? ''
        : `${rec.ccache.hits}/${rec.ccache.hits + rec.ccache.misses} (${(rec.ccache.hitRate * 100).toFixed(1)}%)`;
    lines.push(`${r.label.padEnd(29)} ${r.s.toFixed(1).padStart(6)}   ${phases.padEnd(72)} ${cc}`);
  }
  const [, hit, head] = rows;
  lines.push(
    '',
    `cache hit ${hit!.s.toFixed(1)} s (target < ${TARGETS_S.hit} s): ${hit!.s < TARGETS_S.hit ? 'ok' : 'MISSED'}`,
    `one-file head build ${head!.s.toFixed(1)} s (target < ${TARGETS_S.oneFile} s): ${head!.s < TARGETS_S.oneFile ? 'ok' : 'MISSED'}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(
    `${JSON.stringify({ major: values.major, rows: rows.map((r) => ({ label: r.label, s: r.s, record: r.built.record })) })}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`bench/build: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
