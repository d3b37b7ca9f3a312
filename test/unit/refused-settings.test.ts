/**
 * A setting that loads code from a path (issue #33: `jit_provider=../../../../tmp/x/evil` with `jit=on` made
 * the server load evil.so) is refused before anything starts, from every place a setting comes from: a
 * workload file (through `pgperf run --workload` and through the Action's input 'workloads', both run for
 * real in this process), `--set`, a `/pgperf` command (whose grammar carries no settings), and, as the last
 * gate, any cluster (e.g. a stored run's arm settings reused as the baseline). Every child process pgperf
 * could start goes through node:child_process, which is watched here: a refusal starts none. PostgreSQL
 * compares setting names in any case; pgperf takes them in lower case only and says what another spelling
 * would be. The list itself is checked against pg_settings in test/integration/settings-audit.int.test.ts.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import * as childProcess from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as runActionEntry } from '../../src/action.js';
import { parsePgperfCommand } from '../../src/core/pgperf-command.js';
import {
  CUSTOM_SETTING_WORDS,
  REFUSED_SETTINGS,
  refusedSetting,
  settingProblem,
} from '../../src/core/results/settings.js';
import { UserError } from '../../src/core/util/errors.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { clusterSettings } from '../../src/postgres/cluster/conf.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { ACTION_INPUT_DEFAULTS } from '../helpers/action-inputs.js';
import { runMain } from '../helpers/main-in-process.js';

vi.mock('node:child_process', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:child_process')>();
  return {
    ...actual,
    spawn: vi.fn(actual.spawn),
    spawnSync: vi.fn(actual.spawnSync),
    execFile: vi.fn(actual.execFile),
    execFileSync: vi.fn(actual.execFileSync),
    exec: vi.fn(actual.exec),
    execSync: vi.fn(actual.execSync),
  };
});

const root = new URL('../../', import.meta.url).pathname;
/** The value of the report: from $libdir, four levels up and into /tmp. */
const EVIL = '../../../../tmp/x/evil';
const bin = '/usr/lib/postgresql/15/bin';
const JIT_REFUSED = `"jit_provider" takes the name of a JIT library of the install under test (llvmjit, the default), not paths, got '${EVIL}'`;

let dir: string;
let savedTmpdir: string | undefined;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'refused-settings-'));
  await mkdir(path.join(dir, 'tmp'));
  // pgperf's temp dirs go here, so that a refusal can be shown to have made none.
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = path.join(dir, 'tmp');
});
afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => vi.clearAllMocks());

/** Child processes started (through any function of node:child_process) since the test began. */
function childProcessesStarted(): unknown[][] {
  return (['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync'] as const).flatMap(
    (f): unknown[][] => vi.mocked(childProcess[f]).mock.calls,
  );
}

/** Nothing started: no child process, no pgperf temp directory. */
async function expectNothingStarted(): Promise<void> {
  expect(childProcessesStarted()).toEqual([]);
  expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);
}

/** A pgbench workload file with these settings (YAML lines, indented under `settings:`). */
async function workloadFile(name: string, settings: string[], tool: 'pgbench' | 'sysbench' = 'pgbench') {
  const head =
    tool === 'pgbench'
      ? 'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n'
      : 'name: w\ntool: sysbench\nscript: oltp_read_only\nclients: [1]\n';
  const file = path.join(dir, name);
  await writeFile(file, `${head}settings:\n${settings.map((s) => `  ${s}\n`).join('')}`);
  return file;
}

/** `pgperf run` of two real arms with these extra arguments. */
const pgperfRun = (...args: string[]) =>
  runMain(['run', '--arm', `base=${bin}`, '--arm', `head=${bin}`, '--out', path.join(dir, 'out'), ...args]);

describe('jit_provider with a path is refused before anything starts, from every source', () => {
  it('(the watch sees the child processes pgperf starts)', async () => {
    await nodeProcessRunner.run('true', []);
    expect(childProcessesStarted()).toHaveLength(1);
  });

  it('a workload file given to pgperf run: exit 2, the file, line and field named', async () => {
    const file = await workloadFile('jit.yml', ['jit: on', `jit_provider: ${EVIL}`]);
    const ran = await pgperfRun('--workload', file);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${file}:7:17: settings.jit_provider: ${JIT_REFUSED}`);
    await expectNothingStarted();
  });

  it('a sysbench workload file alike (every tool shares the settings field)', async () => {
    const file = await workloadFile('sysbench.yml', [`jit_provider: '${EVIL}'`], 'sysbench');
    const text = await readFile(file, 'utf8');
    expect(() => parseWorkload(text, 'sysbench.yml')).toThrow(UserError);
    expect(() => parseWorkload(text, 'sysbench.yml')).toThrow(
      `sysbench.yml:6:17: settings.jit_provider: ${JIT_REFUSED}`,
    );
  });

  it('--set ARM:NAME=VALUE: exit 2, the flag named', async () => {
    const ran = await pgperfRun('--set', `head:jit_provider=${EVIL}`, '--workload', 'select-only');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`--set head:jit_provider: ${JIT_REFUSED}`);
    await expectNothingStarted();
  });

  it("the Action's input 'workloads', run through the entry point with INPUT_ variables: the step fails", async () => {
    const workspace = path.join(dir, 'workspace');
    await mkdir(workspace, { recursive: true });
    await workloadFile('workspace/perf.yml', ['jit: on', `jit_provider: ${EVIL}`]);
    const event = path.join(dir, 'event.json');
    await writeFile(event, JSON.stringify({ ref: 'refs/heads/main' }));
    const inputs: Record<string, string> = {
      ...ACTION_INPUT_DEFAULTS,
      'github-token': '',
      comment: 'false',
      'commit-status': 'false',
      workloads: 'perf.yml',
      'base-bin-dir': bin,
      'head-bin-dir': bin,
    };
    const env: NodeJS.ProcessEnv = {
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: event,
      GITHUB_WORKSPACE: workspace,
      GITHUB_SHA: 'a'.repeat(40),
      ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
    };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const out: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await runActionEntry();
      expect(process.exitCode).toBe(1);
    } finally {
      stdout.mockRestore();
      process.env = saved;
      process.exitCode = undefined;
    }
    const text = out.join('');
    expect(text).toContain(`::error::${path.join(workspace, 'perf.yml')}:7:17: settings.jit_provider: `);
    expect(text).toContain(JIT_REFUSED);
    await expectNothingStarted();
    expect(await readdir(workspace)).toEqual(['perf.yml']);
  });

  it('a /pgperf command carries no settings: a setting is an unknown option of run', () => {
    const parsed = parsePgperfCommand(`/pgperf run jit_provider=${EVIL}`);
    expect(parsed).toMatchObject({ ok: false });
    expect(parsed?.ok === false && parsed.problem).toMatch(
      /^unknown option 'jit_provider=.*' of 'run': expected workloads=, clients=, rounds=/,
    );
    // Workloads are named, never given as a path, and load through the same checked loader.
    const named = parsePgperfCommand(`/pgperf run workloads=${EVIL}`);
    expect(named?.ok === false && named.problem).toMatch(/is no workload name/);
  });

  it.each([
    ['the workload', { workloadSettings: { jit: 'on', jit_provider: EVIL } }],
    // E.g. the arm settings of a stored run, reused for the baseline arm (flows/compare/baseline/stored-baseline.ts).
    ['the arm', { workloadSettings: { jit: 'on' }, armSettings: { jit_provider: EVIL } }],
  ])('any cluster refuses to write one of %s (the last gate)', (owner, conf) => {
    const input = { port: 5432, socketDir: '/tmp/s', maxClients: 1, ...conf };
    expect(() => clusterSettings(input)).toThrow(UserError);
    expect(() => clusterSettings(input)).toThrow(`a setting of ${owner}: ${JIT_REFUSED}`);
  });
});

describe('every spelling PostgreSQL accepts is refused', () => {
  it.each(['JIT_Provider', 'JIT_PROVIDER', 'Jit_provider'])(
    '%s (PostgreSQL folds names to lower case): refused, saying which setting it is',
    async (name) => {
      const expected = `"${name}" is not a setting name as pgperf takes them: write it in lower case like shared_buffers or auto_explain.log_min_duration (PostgreSQL would read it as jit_provider, which takes the name of a JIT library of the install under test (llvmjit, the default), not paths)`;
      const flag = await pgperfRun('--set', `head:${name}=${EVIL}`, '--workload', 'select-only');
      expect(flag.code).toBe(2);
      expect(flag.stderr).toContain(`--set head:${name}: ${expected}`);
      const file = await workloadFile(`${name}.yml`, [`"${name}": ${EVIL}`]);
      const loaded = await pgperfRun('--workload', file);
      expect(loaded.code).toBe(2);
      expect(loaded.stderr).toContain(`${file}:6:19: settings.${name}: ${expected}`);
      await expectNothingStarted();
    },
  );

  it.each([' jit_provider', 'jit_provider ', 'jit-provider', '"jit_provider"', 'jit_provider\u200b'])(
    '%j is no setting name',
    (name) => {
      expect(settingProblem(name, EVIL)).toMatch(/is not a setting name as pgperf takes them/);
    },
  );

  it('a quoted YAML key is the same key: refused', () => {
    const text = `name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\nsettings:\n  "jit_provider": x/y\n`;
    expect(() => parseWorkload(text, 'w.yml')).toThrow(
      `w.yml:6:19: settings.jit_provider: "jit_provider" takes`,
    );
  });

  it.each([
    EVIL,
    `'${EVIL}'`, // already quoted: written as it is
    '/tmp/x/evil',
    '$libdir/../../../../tmp/x/evil',
    String.raw`'\056\056\057tmp\057evil'`, // octal escapes PostgreSQL decodes in a quoted value
    String.raw`C:\evil`,
  ])('value %j: refused', (value) => {
    expect(settingProblem('jit_provider', value)).toMatch(/takes the name of a JIT library .* not paths/);
  });

  it('a library name is fine: the default provider, and preloaded modules of the install', () => {
    expect(settingProblem('jit_provider', 'llvmjit')).toBeUndefined();
    expect(settingProblem('shared_preload_libraries', 'pg_stat_statements, auto_explain')).toBeUndefined();
    expect(settingProblem('lc_time', 'en_US.UTF-8')).toBeUndefined();
  });
});

describe('the list of refused settings', () => {
  it.each(REFUSED_SETTINGS.map((s) => [s.name, s] as const))(
    '%s: a path is refused, and the reason is said',
    (name, entry) => {
      expect(name).toBe(name.toLowerCase());
      expect(refusedSetting(name.toUpperCase())).toBe(entry);
      const problem = settingProblem(name, EVIL);
      expect(problem).toContain(entry.why);
      if (entry.refuses === 'paths') {
        expect(entry.takes).toBeDefined();
        expect(problem).toContain(`takes ${entry.takes}, not paths, got '${EVIL}'`);
      } else {
        expect(settingProblem(name, 'anything')).toBe(problem);
      }
    },
  );

  it('an extension setting pgperf does not know is refused when its name says it is a command or a place', () => {
    for (const name of ['myext.archive_command', 'myext.log_directory', 'myext.on_init', 'myext.conninfo']) {
      expect(settingProblem(name, 'x'), name).toMatch(/is refused: an extension setting named/);
    }
    for (const name of [
      'auto_explain.log_min_duration',
      'pg_stat_statements.track',
      'plpgsql.extra_errors',
    ]) {
      expect(settingProblem(name, '1'), name).toBeUndefined();
    }
  });

  it('docs/security.md lists every refused setting with its reason, and the words of extension settings', async () => {
    const doc = await readFile(path.join(root, 'docs/security.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Refused settings'));
    expect(section.length).toBeLessThan(doc.length);
    for (const s of REFUSED_SETTINGS) {
      const row = section.split('\n').find((line) => line.startsWith(`| \`${s.name}\``));
      expect(row, s.name).toBeDefined();
      expect(row).toContain(s.why);
    }
    const words = /after the dot\s+says what it names: ([^.]*)\./.exec(section)?.[1]?.split(/,\s*|\s+or\s+/);
    expect(words).toEqual(CUSTOM_SETTING_WORDS);
  });
});
