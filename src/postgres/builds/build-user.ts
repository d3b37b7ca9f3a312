/**
 * The user a build's untrusted steps run as. configure / meson setup, make / ninja, make install / meson
 * install and the built programs themselves (postgres --version, pg_config: ../cluster/install-runner.ts)
 * run code of the repository under test: a pull request, a commitfest entry, a patch from the list. When pgperf is root they run as
 * the unprivileged run-as user (the one PostgreSQL runs as, src/postgres/cluster/run-as.ts), never as root:
 * a process of another uid cannot read root's /proc/PID/environ, where the Action's node process keeps
 * INPUT_GITHUB-TOKEN and the runner's ACTIONS_* tokens for as long as it runs (removing them from
 * process.env does not change what the kernel shows there), nor any root process's memory or files.
 *
 * What the user is given, and taken back:
 * - the build's work directory (source checkout, build tree, staging, temp), handed over with chown once
 *   git has checked the commit out and applied the patches as root (git runs none of the tree's code);
 * - the build's log file (its steps append to it), given back to root when the build ends;
 * - the ccache directory, shared by every build and kept by that user from then on (a cache written by
 *   root builds before is handed over once), so later builds reuse its objects.
 * The staged install is frozen before root touches it (owned by root, no group or other write, no setuid:
 * chown -R -P and chmod -R, which never follow symbolic links), each directory on its path is checked to be
 * a real directory of root's, and only then moved into place; the install is frozen again there. Trees the
 * user wrote are removed with `rm -rf`, which does not follow symbolic links even while they change (a
 * process the build left behind may still be running as that user).
 */
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { describeExit, tail, type ChildUser, type ProcessRunner } from '../../machine/os/process.js';

export type BuildUser = ChildUser;

/** The environment a build step gets as `user`: its home and temp directory inside the work directory. */
export function userStepEnv(user: BuildUser, workDir: string): NodeJS.ProcessEnv {
  return {
    HOME: workDir,
    TMPDIR: path.join(workDir, 'tmp'),
    USER: user.name,
    LOGNAME: user.name,
  };
}

async function must(runner: ProcessRunner, command: string, args: string[]): Promise<void> {
  const res = await runner.run(command, args);
  if (res.exitCode !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${describeExit(res)}): ${tail(res.stderr, 5)}`);
  }
}

/**
 * Hands the work directory (checked out and patched by root) and the log file to the user, with a temp
 * directory of its own, and makes the ccache directory the user's.
 */
export async function handOverBuild(
  user: BuildUser,
  dirs: { work: string; log: string; ccache: string },
  runner: ProcessRunner,
): Promise<void> {
  await mkdir(path.join(dirs.work, 'tmp'), { recursive: true, mode: 0o700 });
  const owner = `${user.uid}:${user.gid}`;
  await must(runner, 'chown', ['-R', '-P', owner, '--', dirs.work]);
  await must(runner, 'chown', ['-h', owner, '--', dirs.log]);
  await mkdir(dirs.ccache, { recursive: true, mode: 0o755 });
  const ccache = await lstat(dirs.ccache);
  if (!ccache.isDirectory()) throw new Error(`the ccache directory ${dirs.ccache} is not a directory`);
  // Built by root before (or by another user): handed over once, so that the user's compilers can write.
  if (ccache.uid !== user.uid) await must(runner, 'chown', ['-R', '-P', owner, '--', dirs.ccache]);
}

/** Gives the log file back to root (best effort: the build's outcome is decided already). */
export async function takeBackLog(log: string, runner: ProcessRunner): Promise<void> {
  await runner.run('chown', ['-h', '0:0', '--', log]).catch(() => undefined);
}

/**
 * A tree root owns alone: owner root, no write for group and others, no setuid or setgid bit. chown and
 * chmod with -R never follow a symbolic link (chown -P; chmod skips those it meets); `dir` itself must be a
 * real directory in a directory the user cannot write.
 */
export async function freezeTree(dir: string, runner: ProcessRunner): Promise<void> {
  await must(runner, 'chown', ['-R', '-P', '0:0', '--', dir]);
  await must(runner, 'chmod', ['-R', 'u=rwX,go=rX', '--', dir]);
}

/**
 * Takes the staged install back from the user: the work directory becomes root's (its entries can no longer
 * be swapped), the staging tree is frozen, and each directory from it down to `staged` must be a real
 * directory of root's, not a link the build planted to move or change something outside the tree.
 */
export async function takeBackStaged(
  work: string,
  stage: string,
  staged: string,
  runner: ProcessRunner,
): Promise<void> {
  await must(runner, 'chown', ['-h', '0:0', '--', work]);
  await must(runner, 'chmod', ['0755', '--', work]);
  // A real directory (work is root's now: the entry can no longer change), then frozen, then checked.
  const st = await lstat(stage).catch(() => undefined);
  if (!st?.isDirectory()) {
    throw new Error(`the install step left no staging directory: ${stage} is ${describe(st)}`);
  }
  await freezeTree(stage, runner);
  const rel = path.relative(stage, staged);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`${staged} is not inside ${stage}`);
  let dir = stage;
  await requireRootDirectory(dir, 'the staging directory');
  for (const part of rel.split(path.sep).filter(Boolean)) {
    dir = path.join(dir, part);
    await requireRootDirectory(dir, 'the staged install is not where make install / meson install puts it');
  }
}

async function requireRootDirectory(dir: string, what: string): Promise<void> {
  const st = await lstat(dir).catch(() => undefined);
  if (!st?.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new Error(`${what}: ${dir} is ${describe(st)}`);
  }
}

const describe = (st: Stats | undefined) =>
  !st
    ? 'missing'
    : st.isSymbolicLink()
      ? 'a symbolic link'
      : st.isDirectory()
        ? 'a directory root does not own alone'
        : 'not a directory';

/**
 * Removes a tree the user wrote into: `rm -rf --one-file-system`, which works through directory file
 * descriptors and never follows a symbolic link, also one planted while it runs.
 */
export async function removeUserTree(dir: string, runner: ProcessRunner): Promise<void> {
  await must(runner, 'rm', ['-rf', '--one-file-system', '--', dir]);
}

/**
 * A file the user could have replaced (a link to a secret, a FIFO that never ends), read only when it is a
 * regular file, without following a link or waiting, up to `maxBytes`; '' otherwise.
 */
export async function readUserFile(file: string, maxBytes = 16 * 1024 * 1024): Promise<string> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return '';
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return '';
    const buffer = Buffer.alloc(Math.min(st.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
