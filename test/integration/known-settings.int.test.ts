/**
 * Arms of different PostgreSQL releases in one comparison: a setting an arm's server does not know is
 * refused before anything starts (src/postgres/cluster/known-settings.ts), and given only to the arm that
 * knows it, it runs. Real binaries: Debian's PostgreSQL 15 and 18.6 built from the build tests' cached
 * source repository (test/helpers/pg18-install.ts: one install, found in the test cache); `pgperf run` is
 * the CLI from the sources (tsx), as a user runs it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { refuseUnknownSettings } from '../../src/postgres/cluster/known-settings.js';
import { UserError } from '../../src/core/util/errors.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner, type ProcessRunner } from '../../src/machine/os/process.js';
import { processesMentioning } from '../../testkit/postgres.js';
import { isolatedEnv, onlyResults, runCli } from '../helpers/cli.js';
import { useTmpDir } from '../helpers/tmp-dir.js';
import { writeWorkloadFile } from '../helpers/workload-file.js';
import { pg18BaseBinDir, PG18_BUILD_TIMEOUT_MS } from '../helpers/pg18-install.js';
import { installDeps } from '../helpers/run-as.js';

/** Debian's server, installed by scripts/setup.sh. */
const DEBIAN_15 = '/usr/lib/postgresql/15/bin';
/**
 * How long the refusal may take: the CLI's start through tsx and `postgres --version` and
 * `--describe-config` of two binaries, on a busy 2-core runner (about 2 s here). The test also looks for
 * what a run that got further leaves: its log's "initdb" line and its results document (without the check,
 * PostgreSQL 15 fails to start on the unknown setting after initdb, and the document says so).
 */
const REFUSAL_MS = 30_000;

const tmp = useTmpDir('pgperf-it-known-settings-', { killLeftovers: true });
let pg18BinDir = '';

beforeAll(async () => {
  pg18BinDir = await pg18BaseBinDir();
}, PG18_BUILD_TIMEOUT_MS);

/** A one-cell tpcb-like workload at scale 1, with `settings` (YAML lines) when given. */
function workload(name: string, settings: string[] = []): Promise<string> {
  const text = [
    `name: ${name}`,
    'tool: pgbench',
    'builtin: tpcb-like',
    'scale: 1',
    'clients: [1]',
    'duration: 2',
    'warmup: 0',
    'rounds: 2',
    ...(settings.length > 0 ? ['settings:', ...settings.map((s) => `  ${s}`)] : []),
    '',
  ].join('\n');
  return writeWorkloadFile(tmp(), `${name}.yml`, text);
}

/** `pgperf run` of base = Debian's 15 and head = the built 18 with the clusters under `clusters`. */
async function run15vs18(file: string, out: string, clusters: string, extra: string[] = []) {
  await mkdir(clusters, { recursive: true, mode: 0o755 });
  const args = ['run', '--arm', `base=${DEBIAN_15}`, '--arm', `head=${pg18BinDir}`, '--workload', file];
  // Settings are the question here: no instruction counts (on by default; instructions.int covers them).
  const flags = [
    '--out',
    out,
    '--tmp-dir',
    clusters,
    '--no-store',
    '--seed',
    '7',
    '--force',
    '--no-instructions',
  ];
  const started = Date.now();
  const ran = await runCli([...args, ...flags, ...extra], {
    cwd: tmp(),
    env: isolatedEnv(tmp()),
    source: true,
  });
  return { ...ran, ms: Date.now() - started };
}

describe('a setting an arm of another release does not know', () => {
  it('given to a PostgreSQL 15 arm by the workload, is refused before anything starts', async () => {
    const file = await workload('aio', ['io_method: worker']);
    const out = path.join(tmp(), 'out-refused');
    const clusters = path.join(tmp(), 'clusters-refused');
    const ran = await run15vs18(file, out, clusters);
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain(
      "pgperf: setting 'io_method' (workload aio, settings) is not known to arm 'base' (PostgreSQL 15.18): " +
        "arm 'head' (PostgreSQL 18.6) knows it; remove it or give it only to the arms that know it",
    );
    // Nothing started: no cluster directory, no initdb, no results document.
    expect(await readdir(clusters)).toEqual([]);
    expect(ran.stderr).not.toMatch(/initdb|Setting up clusters/);
    expect(existsSync(out) ? await readdir(out, { recursive: true }) : []).not.toContainEqual(
      expect.stringMatching(/results\.json$/),
    );
    expect(ran.ms).toBeLessThan(REFUSAL_MS);
    expect(processesMentioning(clusters)).toEqual([]);
  }, 120_000);

  it('given only to the PostgreSQL 18 arm (--set), runs, and the report names the client that drove both', async () => {
    const file = await workload('aio-head');
    const out = path.join(tmp(), 'out-head-only');
    const clusters = path.join(tmp(), 'clusters-head-only');
    const ran = await run15vs18(file, out, clusters, [
      '--set',
      'head:io_method=worker',
      '--confirm-rounds',
      '0',
      '--fail-on',
      'never',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const result = await onlyResults(out);
    expect(result.status).toBe('complete');
    expect(result.arms.map((a) => [a.label, a.settingOverrides])).toEqual([
      ['base', {}],
      ['head', { io_method: 'worker' }],
    ]);
    expect(
      result.samples
        .filter((s) => s.status === 'ok')
        .map((s) => s.arm)
        .sort(),
    ).toEqual(['base', 'base', 'head', 'head']);
    // One pgbench, base's (the default client), drove both servers, and the terminal report says which.
    expect(result.clients).toEqual([
      {
        tool: 'pgbench',
        binDir: DEBIAN_15,
        version: expect.stringMatching(/^pgbench \(PostgreSQL\) 15\.18/),
      },
    ]);
    expect(ran.stdout).toMatch(
      /^client: pgbench \(PostgreSQL\) 15\.18 .*from \/usr\/lib\/postgresql\/15\/bin drove every arm$/m,
    );
    expect(processesMentioning(clusters)).toEqual([]);
  }, 300_000);
});

describe('refuseUnknownSettings on the real binaries', () => {
  /** nodeProcessRunner, keeping each command it runs (`postgres --describe-config`, ...). */
  function countingRunner(): { runner: ProcessRunner; ran: string[] } {
    const ran: string[] = [];
    return {
      ran,
      runner: {
        run: (command, args, options) => {
          ran.push([command, ...args].join(' '));
          return nodeProcessRunner.run(command, args, options);
        },
      },
    };
  }
  const arm = (label: string, binDir: string, settings: Record<string, string> = {}) => ({
    label,
    binDir,
    settings,
  });

  it('18 against 18: a setting of 18 passes, and each binary is described once', async () => {
    const { runner, ran } = countingRunner();
    const deps = { ...(await installDeps(runner)), logger: memoryLogger() };
    const arms = [arm('base', pg18BinDir), arm('head', pg18BinDir, { io_workers: '4' })];
    const workloads = [{ name: 'aio', settings: { io_method: 'worker', io_combine_limit: '16' } }];
    await expect(refuseUnknownSettings(arms, workloads, deps)).resolves.toBeUndefined();
    await expect(refuseUnknownSettings(arms, workloads, deps)).resolves.toBeUndefined();
    // Cached per binary for the process: two arms of one install, two checks, one description (the CLI
    // runs above were other processes).
    const describe18 = `${path.join(pg18BinDir, 'postgres')} --describe-config`;
    expect(ran.filter((c) => c === describe18)).toHaveLength(1);
  });

  it('15 against 18: extension settings and those --describe-config leaves out pass; the rest are refused', async () => {
    const deps = { ...(await installDeps()), logger: memoryLogger() };
    const arms = [arm('base', DEBIAN_15), arm('head', pg18BinDir)];
    // A dot: an extension's placeholder; application_name and jit_expressions: not printed by
    // --describe-config (GUC_NOT_IN_SAMPLE), but held by both binaries.
    const fine = { 'pg_stat_statements.track': 'all', application_name: 'x', jit_expressions: 'off' };
    await expect(refuseUnknownSettings(arms, [{ name: 'w', settings: fine }], deps)).resolves.toBeUndefined();

    // debug_io_direct (16+) is left out by 18's --describe-config too: 18's binary holds it, 15's not.
    const refused = refuseUnknownSettings(
      [
        arm('base', DEBIAN_15, { debug_io_direct: 'data' }),
        arm('head', pg18BinDir, { force_parallel_mode: 'on' }),
      ],
      [{ name: 'w', settings: { shared_bufers: '1GB', io_method: 'sync' } }],
      deps,
    );
    await expect(refused).rejects.toThrow(UserError);
    await expect(refused).rejects.toThrow(
      [
        "4 settings are not known to an arm's PostgreSQL:",
        "  setting 'shared_bufers' (workload w, settings) is not known to arm 'base' (PostgreSQL 15.18) or arm 'head' (PostgreSQL 18.6): no arm of this run knows it; check its spelling (`postgres --describe-config` lists the settings a server knows)",
        "  setting 'io_method' (workload w, settings) is not known to arm 'base' (PostgreSQL 15.18): arm 'head' (PostgreSQL 18.6) knows it; remove it or give it only to the arms that know it",
        "  setting 'debug_io_direct' (settings of arm 'base') is not known to arm 'base' (PostgreSQL 15.18): arm 'head' (PostgreSQL 18.6) knows it; remove it or give it only to the arms that know it",
        // Renamed debug_parallel_query in 16.
        "  setting 'force_parallel_mode' (settings of arm 'head') is not known to arm 'head' (PostgreSQL 18.6): arm 'base' (PostgreSQL 15.18) knows it; remove it or give it only to the arms that know it",
      ].join('\n'),
    );
  });

  it('leaves a name to the server when the postgres binary cannot tell: a wrapper script, a failing --describe-config', async () => {
    /** A bin dir of Debian's 15 whose postgres is a shell script running the real one (`script` first). */
    const wrapped = async (name: string, script: string) => {
      const dir = path.join(tmp(), name);
      await mkdir(dir, { recursive: true });
      for (const bin of ['initdb', 'pg_ctl', 'psql'])
        await symlink(path.join(DEBIAN_15, bin), path.join(dir, bin));
      const wrapper = `#!/bin/sh\n${script}\nexec ${DEBIAN_15}/postgres "$@"\n`;
      await writeFile(path.join(dir, 'postgres'), wrapper, { mode: 0o755 });
      return dir;
    };
    const logger = memoryLogger();
    const deps = { ...(await installDeps()), logger };
    // debug_io_direct (16+): refused for the real binary, which holds no such name...
    const refused = refuseUnknownSettings([arm('base', DEBIAN_15, { debug_io_direct: 'data' })], [], deps);
    await expect(refused).rejects.toThrow("setting 'debug_io_direct' (settings of arm 'base')");
    // ...not when postgres is a script: its strings are not the server's.
    const script = await wrapped('wrapper', ': a wrapper, as valgrind or perf setups use');
    await refuseUnknownSettings([arm('base', script, { debug_io_direct: 'data' })], [], deps);
    // A --describe-config that fails: said, and nothing refused.
    const failing = await wrapped('failing', '[ "$1" = --describe-config ] && exit 1');
    await refuseUnknownSettings([arm('base', failing, { io_method: 'worker' })], [], deps);
    expect(logger.lines.join('\n')).toMatch(
      /arm base: cannot tell which settings PostgreSQL 15\.18 knows \(.*--describe-config: exit code 1\); its server says so at start instead/,
    );
  });

  it('runs nothing when no setting is given', async () => {
    const { runner, ran } = countingRunner();
    const arms = [arm('base', '/nonexistent/bin'), arm('head', '/nonexistent/bin')];
    await refuseUnknownSettings(arms, [{ name: 'w', settings: {} }], {
      ...(await installDeps(runner)),
      logger: memoryLogger(),
    });
    expect(ran).toEqual([]);
  });
});
