/**
 * The pieces of "a gate that cannot be fooled" that need no server: the child-process environment,
 * secret masking, setting validation, conf rendering, signal handling and the build cache's content
 * hash.
 */
import { EventEmitter } from 'node:events';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installContentHash, markComplete, readCompleted } from '../../src/postgres/builds/cache.js';
import { makeTempDir, onCleanup, pendingCleanups, runCleanups } from '../../src/machine/os/cleanup.js';
import { renderConf } from '../../src/postgres/cluster/conf.js';
import { settingProblem } from '../../src/core/results/settings.js';
import { allowedEnvironment, childEnvironment, secretsToMask } from '../../src/machine/os/child-env.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { installSignalHandlers, signalExitCode } from '../../src/machine/os/signals.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('child-process environment', () => {
  const parent = {
    PATH: '/usr/bin:/bin',
    HOME: '/root',
    LANG: 'C.UTF-8',
    LC_CTYPE: 'C',
    TZ: 'UTC',
    'INPUT_GITHUB-TOKEN': 'ghs_secret1',
    GITHUB_TOKEN: 'ghs_secret2',
    ACTIONS_RUNTIME_TOKEN: 'rt',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://x',
    PGPERF_STORE: 'postgres://u:pw@h/db',
    MY_API_SECRET: 's',
    DB_PASSWORD: 'p',
    PGHOST: 'elsewhere',
    PGPASSWORD: 'pw',
    GITHUB_REPOSITORY: 'o/r',
  };

  it('passes only the allow-list from the parent', () => {
    expect(allowedEnvironment(parent)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      LC_CTYPE: 'C',
      TZ: 'UTC',
    });
  });

  it('merges explicit variables on top, never secret-looking ones', () => {
    const env = childEnvironment(parent, { LC_ALL: 'C', PGAPPNAME: 'pgbench', ...parent });
    expect(env.LC_ALL).toBe('C');
    expect(env.PGAPPNAME).toBe('pgbench');
    for (const name of [
      'INPUT_GITHUB-TOKEN',
      'GITHUB_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_URL',
      'PGPERF_STORE',
      'MY_API_SECRET',
      'DB_PASSWORD',
      'PGPASSWORD',
    ]) {
      expect(env, name).not.toHaveProperty(name);
    }
  });

  it('a real child does not see the token set in the parent', async () => {
    const saved = { ...process.env };
    process.env['INPUT_GITHUB-TOKEN'] = 'ghs_fake_input_token';
    process.env.GITHUB_TOKEN = 'ghs_fake_token';
    try {
      const res = await nodeProcessRunner.run('env', []);
      expect(res.exitCode).toBe(0);
      expect(res.stdout).not.toMatch(/ghs_fake/);
      expect(res.stdout).toMatch(/^PATH=/m);
      const explicit = await nodeProcessRunner.run('env', [], { env: { ...process.env, X_PGPERF: '1' } });
      expect(explicit.stdout).toMatch(/^X_PGPERF=1$/m);
      expect(explicit.stdout).not.toMatch(/ghs_fake/);
    } finally {
      process.env = saved;
    }
  });

  it('every child goes through the one runner that scrubs its environment: no other module can start one', async () => {
    // node:child_process (spawn, exec, fork) and @actions/exec start processes; only process.ts may.
    const starters = /from '(node:)?child_process'|from '@actions\/exec'|require\('(node:)?child_process'\)/;
    const src = path.join(import.meta.dirname, '../../src');
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const starting = [];
    for (const file of files) {
      if (starters.test(await readFile(path.join(src, file), 'utf8'))) starting.push(file);
    }
    expect(starting).toEqual([path.join('machine', 'os', 'process.ts')]);
  });

  it('masks a token and the password of a store URL (raw and decoded)', () => {
    expect(secretsToMask(['ghs_abc', undefined, '', 'postgres://user:p%40ss@db.example/perf'])).toEqual([
      'ghs_abc',
      'postgres://user:p%40ss@db.example/perf',
      'p%40ss',
      'p@ss',
    ]);
  });
});

describe('settings', () => {
  it.each([
    ['hba_file', '/tmp/x', /set by pgperf/],
    ['port', '5432', /set by pgperf/],
    ['include_dir', 'conf.d', /set by pgperf/],
    ['archive_command', 'curl evil', /is refused: a shell command the server runs/],
    ['jit_provider', '../../../../tmp/x/evil', /JIT library .* not paths/],
    ['work_mem', "4MB'\nhba_file = '/tmp/evil", /single line/],
    ['work_mem', 'a\0b', /NUL/],
    ['Work_Mem', '4MB', /not a setting name/],
    ['shared_preload_libraries', '/tmp/evil.so', /library names .* not paths/],
  ])('%s = %j is refused', (name, value, message) => {
    expect(settingProblem(name, value)).toMatch(message);
  });

  it.each([
    ['work_mem', '64MB'],
    ['shared_preload_libraries', 'pg_stat_statements'],
    ['auto_explain.log_min_duration', '0'],
  ])('%s = %j is fine', (name, value) => {
    expect(settingProblem(name, value)).toBeUndefined();
  });

  it('conf rendering refuses a line break and quotes a half-quoted value', () => {
    expect(() => renderConf({ work_mem: "'4MB'\nhba_file = '/tmp/x'" })).toThrow(/refusing/);
    expect(renderConf({ search_path: "'a' , hba_file = 'x'" })).toContain(
      "search_path = '''a'' , hba_file = ''x'''",
    );
  });
});

describe('signal handlers', () => {
  it('first signal stops gracefully, the second cleans up and exits 130/143', async () => {
    const source = new EventEmitter();
    const firsts: string[] = [];
    const exits: number[] = [];
    let cleaned = 0;
    const dispose = installSignalHandlers({
      logger: memoryLogger(),
      source,
      onFirst: (s) => firsts.push(s),
      cleanup: async () => {
        cleaned++;
      },
      exit: (code) => exits.push(code),
    });
    source.emit('SIGTERM');
    expect(firsts).toEqual(['SIGTERM']);
    expect(exits).toEqual([]);
    source.emit('SIGTERM');
    source.emit('SIGINT'); // while exiting: ignored
    await new Promise((r) => setTimeout(r, 10));
    expect(cleaned).toBe(1);
    expect(exits).toEqual([143]);
    dispose();
    expect(source.listenerCount('SIGINT')).toBe(0);
    expect(source.listenerCount('uncaughtException')).toBe(0);
    expect(signalExitCode('SIGINT')).toBe(130);
  });

  it('an uncaught exception cleans up and exits 70', async () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const logger = memoryLogger();
    installSignalHandlers({
      logger,
      source,
      onFirst: () => {},
      cleanup: async () => {},
      exit: (c) => exits.push(c),
    });
    source.emit('unhandledRejection', new Error('boom'));
    await new Promise((r) => setTimeout(r, 10));
    expect(exits).toEqual([70]);
    expect(logger.lines.join('\n')).toMatch(/internal error: boom/);
  });

  it('registered temp dirs are removed by runCleanups; concurrent runs wait for each other', async () => {
    const t = await makeTempDir('pgperf-unit-');
    await writeFile(path.join(t.dir, 'f'), 'x');
    let finished = false;
    onCleanup(async () => {
      await new Promise((r) => setTimeout(r, 30));
      finished = true;
    });
    const first = runCleanups();
    await runCleanups(); // must not return before the first finished
    expect(finished).toBe(true);
    await first;
    expect(pendingCleanups()).toBe(0);
    await expect(import('node:fs/promises').then((fs) => fs.access(t.dir))).rejects.toThrow();
  });
});

describe('build cache content hash', () => {
  async function fakeInstall(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-unit-install-'));
    dirs.push(dir);
    await mkdir(path.join(dir, 'bin'));
    await mkdir(path.join(dir, 'lib', 'postgresql'), { recursive: true });
    await writeFile(path.join(dir, 'bin', 'postgres'), 'ELF server');
    await chmod(path.join(dir, 'bin', 'postgres'), 0o755);
    await writeFile(path.join(dir, 'lib', 'libpq.so.5.18'), 'ELF libpq');
    await symlink('libpq.so.5.18', path.join(dir, 'lib', 'libpq.so.5'));
    return dir;
  }

  it('a marked install is reused while unchanged', async () => {
    const dir = await fakeInstall();
    await markComplete(dir, { key: 'k1' });
    const warnings: string[] = [];
    expect(await readCompleted(dir, (m) => warnings.push(m))).toMatchObject({ key: 'k1' });
    expect(warnings).toEqual([]);
  });

  it.each([
    ['a binary rewritten', (d: string) => writeFile(path.join(d, 'bin', 'postgres'), 'ELF evil!!')],
    ['a library added', (d: string) => writeFile(path.join(d, 'lib', 'postgresql', 'evil.so'), 'x')],
    [
      'a symlink redirected',
      async (d: string) => {
        await rm(path.join(d, 'lib', 'libpq.so.5'));
        await symlink('/tmp/evil.so', path.join(d, 'lib', 'libpq.so.5'));
      },
    ],
  ])('%s after the marker: not reused, with a warning', async (_what, tamper) => {
    const dir = await fakeInstall();
    await markComplete(dir, { key: 'k1' });
    const before = await installContentHash(dir);
    await tamper(dir);
    expect(await installContentHash(dir)).not.toBe(before);
    const warnings: string[] = [];
    expect(await readCompleted(dir, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/does not match the content hash .* rebuilding it/);
  });

  it('a marker without a content hash (forged or old) is not trusted', async () => {
    const dir = await fakeInstall();
    await writeFile(path.join(dir, '.complete'), JSON.stringify({ key: 'k1' }));
    const warnings: string[] = [];
    expect(await readCompleted(dir, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/has no content hash/);
  });
});
