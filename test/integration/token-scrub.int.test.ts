/**
 * A build step cannot read the token (issue #40 item 1). The build runs in a process of its own whose
 * environment holds a fake Action token (INPUT_GITHUB-TOKEN, GITHUB_TOKEN, ACTIONS_* tokens, a store URL
 * with a password), as the runner starts `node dist/index.js`: the kernel shows that environment in
 * /proc/PID/environ for as long as the process runs, whatever it removes from process.env. The tree it
 * builds is a tiny fake PostgreSQL (no compiler runs): `configure` writes a Makefile, and configure, `make
 * world-bin`, `make install-world-bin` and the built `postgres --version` (which pgperf runs to verify the
 * install) each run a spy that dumps its own environment and every /proc/PID/environ it can read.
 *
 * As root (the self-hosted runner's usual user), pgperf runs those steps as the unprivileged run-as user
 * (src/postgres/builds/build-user.ts): no dump may hold a token value, every dump is written by that user,
 * and each names the building process's environ as unreadable. The control: the same spy run as root
 * (by the building process, before it builds) finds the token there, so the scan is not blind. Also: a
 * configure that fails is a configure failure with nothing left behind; an install step that plants a
 * symbolic link where the staged install belongs is refused and what the link points at is untouched; the
 * install is root's alone (no group or other write), the ccache directory the run-as user's, the log
 * root's again, the work directory gone, and a second build of the same commit is a cache hit.
 *
 * Not root: the steps run as pgperf's own user, which may read its own /proc/PID/environ; this file is
 * skipped (docs/security.md says so).
 */
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/doc-pages.js';
import { gitIn } from '../helpers/git.js';

const isRoot = process.getuid?.() === 0;
const TOKENS = {
  'INPUT_GITHUB-TOKEN': `ghs_fakeInputToken${process.pid}x7Q`,
  GITHUB_TOKEN: `ghs_fakeGithubToken${process.pid}k2W`,
  ACTIONS_RUNTIME_TOKEN: `fakeRuntimeToken${process.pid}r9Z`,
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: `fakeIdToken${process.pid}p4M`,
  PGPERF_STORE: `postgresql://perf:fakeStorePassword${process.pid}@db.invalid/perf`,
};
const SECRET_VALUES = [...Object.values(TOKENS), `fakeStorePassword${process.pid}`];

let tmp: string;
let repo: string;
let dumps: string;
let cacheDir: string;
let victim: string;

// `repo` is made in beforeAll: resolved at each call.
const git = (...args: string[]) => gitIn(repo)(...args);

/** The spy: which user it runs as, its own environment, and every /proc/PID/environ it can or cannot read. */
const SPY = `#!/bin/sh
out="$DUMPS/$1.txt"
{
  echo "uid $(id -u)"
  echo "== own environment"
  env
  for f in /proc/[0-9]*/environ; do
    if tr '\\0' '\\n' < "$f" > /dev/null 2>&1; then
      echo "== readable $f"
      tr '\\0' '\\n' < "$f" 2>/dev/null
    else
      echo "== unreadable $f"
    fi
  done
} > "$out.part" 2>&1
mv "$out.part" "$out"
`;

/** A fake PostgreSQL tree whose install step runs `install` (recipe lines) and whose configure exits `configureExit`. */
function fakeTree(install: string[], configureExit = 0): Record<string, string> {
  return {
    configure: `#!/bin/sh
prefix=
for a in "$@"; do case $a in --prefix=*) prefix=\${a#--prefix=} ;; esac; done
sh ./spy.sh configure
[ ${configureExit} = 0 ] || { echo "configure: error: this tree says no" >&2; exit ${configureExit}; }
echo "PREFIX = $prefix" > config.mk
`,
    Makefile: [
      'include config.mk',
      'world-bin:',
      '\tsh ./spy.sh compile',
      'install-world-bin:',
      '\tsh ./spy.sh install',
      ...install.map((line) => `\t${line}`),
      '',
    ].join('\n'),
    'spy.sh': SPY.replace('$DUMPS', dumps),
    'fake-postgres': `#!/bin/sh
case "$1" in
  --version) sh ${JSON.stringify(path.join(dumps, 'spy.sh'))} postgres-version; echo "postgres (PostgreSQL) 18.0" ;;
  --cflags) echo "-O2" ;;
esac
`,
  };
}

const INSTALL_OK = [
  'mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib',
  'for b in postgres pg_config initdb pg_ctl psql; do cp fake-postgres $(DESTDIR)$(PREFIX)/bin/$$b; chmod 755 $(DESTDIR)$(PREFIX)/bin/$$b; done',
];

/** Commits a tree on a new branch of the fake repository. */
async function branch(name: string, files: Record<string, string>): Promise<void> {
  git('checkout', '--quiet', '--orphan', name);
  git('rm', '-rf', '--quiet', '--ignore-unmatch', '.');
  for (const [file, text] of Object.entries(files)) {
    await writeFile(path.join(repo, file), text, { mode: 0o755 });
  }
  git('add', '.');
  git('commit', '--quiet', '-m', name);
}

interface ChildResult {
  pid: number;
  selfEnvironHasToken: boolean;
  ok: boolean;
  cacheHit?: boolean;
  installDir?: string;
  error?: string;
  step?: string;
}

/** Builds `ref` in a child process whose environment holds the fake tokens. */
function buildInChild(ref: string, controlDump: string): ChildResult {
  const stdout = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'test/helpers/build-in-child.ts'),
      JSON.stringify({ repo, ref, cacheDir, spy: path.join(dumps, 'spy.sh'), controlDump }),
    ],
    { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, ...TOKENS }, timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
}

async function dump(name: string): Promise<string> {
  return readFile(path.join(dumps, `${name}.txt`), 'utf8');
}
const leaked = (text: string) => SECRET_VALUES.filter((v) => text.includes(v));
const owner = () => Number(execFileSync('id', ['-u', 'pgperf'], { encoding: 'utf8' }).trim());

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-token-'));
  await chmod(tmp, 0o755); // the run-as user reaches the cache's work directories and installs through it
  repo = path.join(tmp, 'repo');
  dumps = path.join(tmp, 'dumps');
  cacheDir = path.join(tmp, 'cache');
  victim = path.join(tmp, 'victim');
  await mkdir(dumps, { mode: 0o1777 });
  await chmod(dumps, 0o1777);
  await writeFile(path.join(dumps, 'spy.sh'), SPY.replace('$DUMPS', dumps), { mode: 0o755 });
  await mkdir(victim, { mode: 0o700 });
  await writeFile(path.join(victim, 'secret'), 'root only\n', { mode: 0o600 });
  await mkdir(repo);
  execFileSync('git', ['init', '--quiet', '--initial-branch=ok', repo]);
  await branch('ok', fakeTree(INSTALL_OK));
  await branch('fails', fakeTree(INSTALL_OK, 1));
  // The install step makes the staged install a link to a root-only directory outside the tree.
  await branch(
    'planted',
    fakeTree(['mkdir -p $$(dirname $(DESTDIR)$(PREFIX))', `ln -s ${victim} $(DESTDIR)$(PREFIX)`]),
  );
}, 60_000);
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!isRoot)('as root, a build step cannot read the token', () => {
  it('configure, compile, install and the built postgres run as the run-as user and find no token', async () => {
    const result = buildInChild('ok', 'control-ok');
    expect(result).toMatchObject({ ok: true, cacheHit: false, selfEnvironHasToken: true });

    // The control: run as root, the scan reads the building process's environment and finds the token.
    const control = await dump('control-ok');
    expect(control).toContain(`== readable /proc/${result.pid}/environ`);
    expect(leaked(control)).toEqual(expect.arrayContaining([TOKENS['INPUT_GITHUB-TOKEN']]));

    const uid = owner();
    for (const step of ['configure', 'compile', 'install', 'postgres-version']) {
      const text = await dump(step);
      expect(leaked(text), `${step}: token values in what it saw`).toEqual([]);
      expect(text.split('\n')[0], `${step} runs as the run-as user`).toBe(`uid ${uid}`);
      expect(text, `${step} cannot read the building process`).toContain(
        `== unreadable /proc/${result.pid}/environ`,
      );
      expect(text, `${step} reads its own environment (the scan works)`).toMatch(/== readable /);
      if (step !== 'postgres-version') expect(text).toMatch(/^HOME=.*\/builds\/[^/]+$/m);
      expect(text).not.toMatch(/^(INPUT_|ACTIONS_|GITHUB_TOKEN|PGPERF_STORE)/m);
    }

    // Root's install, the user's ccache, root's log again, no work directory left.
    const install = result.installDir!;
    for (const file of ['bin', 'bin/postgres', 'bin/pg_config', '.complete']) {
      const st = await lstat(path.join(install, file));
      expect(st.uid, file).toBe(0);
      expect(st.mode & 0o022, `${file}: no group or other write`).toBe(0);
    }
    expect((await stat(path.join(cacheDir, 'ccache'))).uid).toBe(uid);
    const logs = await readdir(path.join(cacheDir, 'logs'));
    for (const log of logs) expect((await stat(path.join(cacheDir, 'logs', log))).uid).toBe(0);
    expect(await readdir(path.join(cacheDir, 'builds'))).toEqual([]);

    // The cache stays usable: the same commit again is a hit.
    expect(buildInChild('ok', 'control-again')).toMatchObject({ ok: true, cacheHit: true });
  }, 240_000);

  it('a configure that fails is a configure failure, sees no token, and leaves nothing behind', async () => {
    await rm(path.join(dumps, 'configure.txt'), { force: true });
    const result = buildInChild('fails', 'control-fails');
    expect(result).toMatchObject({ ok: false, step: 'configure' });
    expect(result.error).toMatch(/configure failed .*this tree says no/s);
    expect(leaked(await dump('configure'))).toEqual([]);
    expect((await dump('configure')).split('\n')[0]).toBe(`uid ${owner()}`);
    expect(await readdir(path.join(cacheDir, 'builds'))).toEqual([]);
  }, 240_000);

  it('an install step that plants a link where the staged install belongs is refused; its target is untouched', async () => {
    const before = await stat(victim);
    const result = buildInChild('planted', 'control-planted');
    expect(result).toMatchObject({ ok: false, step: 'install' });
    expect(result.error).toMatch(/is a symbolic link/);
    const after = await stat(victim);
    expect({ uid: after.uid, mode: after.mode }).toEqual({ uid: before.uid, mode: before.mode });
    expect(await readdir(victim)).toEqual(['secret']);
    expect((await stat(path.join(victim, 'secret'))).mode & 0o777).toBe(0o600);
    const installs = await readdir(path.join(cacheDir, 'installs'));
    for (const slot of installs) {
      expect((await lstat(path.join(cacheDir, 'installs', slot))).isSymbolicLink(), slot).toBe(false);
    }
    expect(await readdir(path.join(cacheDir, 'builds'))).toEqual([]);
  }, 240_000);
});
