/**
 * The files of an install that the server and its tools can load or read, for the same-code comparison
 * (compiled-code.ts): every file under the install prefix (the bin dir's parent: programs, shared
 * libraries, server modules, JIT bitcode, extension scripts, the sample configuration, the data files
 * initdb reads, time zones, and any file pgperf does not know) except those nothing runs or reads when a
 * benchmark runs: headers (include/), static libraries, pkg-config and pgxs build files, documentation, and
 * the build cache's own record (`.complete`). A Debian-layout install (`<root>/lib/postgresql/N/bin`) keeps
 * its data files outside the prefix, in `<root>/share/postgresql/N`, where its server finds them: those
 * are walked too, named `<sharedir>/...`.
 *
 * Symbolic links are resolved, not read as text: a link to a file or directory inside the install is its
 * target's name (the target itself is compared where it is; one in what is not compared, such as include/,
 * is read or walked as if it were at the link); a link that leaves the install (or the share directory), a
 * dangling one and anything that is not a regular file (a FIFO, a socket, a device) cannot be vouched for,
 * and make the installs differ. An install without its server's data files (postgres.bki) or
 * modules (plpgsql.so) where the server looks for them keeps them somewhere pgperf does not know: then the
 * comparison is not made (`unknown`), and the arms are measured.
 */
import type { Dirent } from 'node:fs';
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** An install with more files than this is not walked (a bin dir of /usr/bin would walk all of /usr). */
export const MAX_INSTALL_FILES = 50_000;
/** How the files of a Debian layout's share directory are named (it lies outside the prefix). */
export const SHAREDIR_KEY = '<sharedir>';

/** Under the prefix: what neither the server nor a client loads or reads. */
const NOT_READ = [
  /^include\//,
  /^share\/(doc|man)\//,
  /^lib\/(.*\/)?pgxs\//,
  /^lib\/pkgconfig\//,
  /^lib\/.*\.a$/,
  /^\.complete$/,
  new RegExp(`^${SHAREDIR_KEY}/(doc|man)/`),
];
/** Where a server looks for its catalog's data file and its modules (pkglibdir), by layout. */
const DATA_FILE = ['share/postgresql/postgres.bki', 'share/postgres.bki', `${SHAREDIR_KEY}/postgres.bki`];
const MODULE_FILE = ['lib/postgresql/plpgsql.so', 'lib/plpgsql.so'];

/** One file of an install, as the comparison reads it. */
export type InstallFile =
  /** A regular file: its path (the real path when reached through a link into what is not compared). */
  | { kind: 'file'; file: string }
  /** A link to a file or directory of the install that is compared in its own right: its target's name. */
  | { kind: 'link'; to: string }
  /** Not to be vouched for: a link out of the install, a dangling link, a FIFO, a socket, a device. */
  | { kind: 'foreign'; why: string };

export interface InstallFiles {
  /** The install prefix (the bin dir's parent, resolved). */
  prefix: string;
  /** By name: the path under the prefix, or `<sharedir>/...` for a Debian layout's share directory. */
  files: Map<string, InstallFile>;
  /** Why the install's files cannot all be seen: then nothing is compared. */
  unknown?: string;
}

interface Root {
  key: string;
  dir: string;
  real: string;
}

/** The files of the install whose bin directory is `binDir` (see the module comment). */
export async function installFiles(binDir: string): Promise<InstallFiles> {
  const prefix = path.resolve(path.dirname(binDir));
  const roots = await installRoots(prefix);
  const files = new Map<string, InstallFile>();
  const named = (key: string, rel: string) => (key ? path.posix.join(key, rel) : rel);
  /** The name of a real path inside one of the roots, or undefined for a path outside them all. */
  const nameOf = (real: string): string | undefined => {
    for (const root of roots) {
      const rel = path.relative(root.real, real);
      if (rel === '') return root.key || '.';
      if (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
        return named(root.key, rel.split(path.sep).join('/'));
    }
    return undefined;
  };
  let tooMany = false;
  const add = (name: string, file: InstallFile) => {
    if (files.size >= MAX_INSTALL_FILES) tooMany = true;
    else files.set(name, file);
  };
  // `ancestors`: the real paths of the directories walked down to here (a link to one of them is a loop).
  const walk = async (dir: string, name: string, ancestors: readonly string[]): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && ancestors.length === 1) return;
      throw e;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (tooMany) return;
      const child = name ? path.posix.join(name, entry.name) : entry.name;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!notRead(`${child}/`)) await walk(abs, child, [...ancestors, await realpath(abs)]);
      } else if (notRead(child)) continue;
      else if (entry.isFile()) add(child, { kind: 'file', file: abs });
      else if (entry.isSymbolicLink()) await followLink(abs, child, ancestors);
      else add(child, { kind: 'foreign', why: 'not a regular file' });
    }
  };
  // A link into what is compared anyway is its target's name; one into what is not (a header, a static
  // library) is read or walked as if it were where the link is.
  const followLink = async (abs: string, name: string, ancestors: readonly string[]) => {
    const text = await readlink(abs);
    const real = await realpath(abs).catch(() => undefined);
    if (!real) return add(name, { kind: 'foreign', why: `a dangling link (to ${text})` });
    const target = nameOf(real);
    if (target === undefined)
      return add(name, { kind: 'foreign', why: `a link out of the install (to ${real})` });
    const info = await stat(real);
    if (!info.isDirectory() && !info.isFile())
      return add(name, { kind: 'foreign', why: `a link to what is not a regular file (${target})` });
    const dir = info.isDirectory();
    if (!notRead(dir ? `${target}/` : target) || ancestors.includes(real))
      return add(name, { kind: 'link', to: target });
    if (dir) return walk(real, name, [...ancestors, real]);
    return add(name, { kind: 'file', file: real });
  };
  for (const root of roots) await walk(root.dir, root.key, [root.real]);
  if (tooMany) {
    return {
      prefix,
      files,
      unknown: `${prefix} has more than ${MAX_INSTALL_FILES} files: not an install prefix`,
    };
  }
  // Where the server finds them (through links too): a file there, or where the server looks is unknown.
  const at = (name: string) => {
    const root = roots.find((r) => r.key !== '' && name.startsWith(`${r.key}/`));
    return root ? path.join(root.dir, name.slice(root.key.length + 1)) : path.join(prefix, name);
  };
  for (const need of [
    { what: 'data files', where: DATA_FILE },
    { what: 'modules', where: MODULE_FILE },
  ]) {
    const looked = need.where.filter((n) => !n.startsWith(`${SHAREDIR_KEY}/`) || roots.length > 1).map(at);
    const found = await Promise.all(
      looked.map((f) =>
        stat(f).then(
          (s) => s.isFile(),
          () => false,
        ),
      ),
    );
    if (found.includes(true)) continue;
    const dirs = looked.map((f) => path.dirname(f)).join(', ');
    return {
      prefix,
      files,
      unknown: `${prefix} has no ${path.basename(need.where[0]!)} in ${dirs}: where its server finds its ${need.what} is unknown`,
    };
  }
  return { prefix, files };
}

function notRead(name: string): boolean {
  return NOT_READ.some((re) => re.test(name));
}

/** The prefix, and a Debian layout's share directory when there is one. */
async function installRoots(prefix: string): Promise<Root[]> {
  const real = await realpath(prefix);
  const roots: Root[] = [{ key: '', dir: prefix, real }];
  const debian = /^(.*)\/lib\/postgresql\/(\d+)$/.exec(real);
  if (debian) {
    const dir = path.join(debian[1]!, 'share', 'postgresql', debian[2]!);
    const shareReal = await realpath(dir).catch(() => undefined);
    if (shareReal && (await stat(shareReal)).isDirectory())
      roots.push({ key: SHAREDIR_KEY, dir, real: shareReal });
  }
  return roots;
}
