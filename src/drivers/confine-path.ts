/**
 * Files a workload names stay inside the workload's own directory tree: no absolute paths, no `..` out of
 * it, no symlink that leads out. Workload files come from pull requests, and pgperf may run as root: a
 * script path must not become a way to read /etc/shadow into a benchmark client and its logs.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * The real path of `name` (relative to `root`), or why it is refused: "absolute paths are not allowed",
 * "it leads out of <root>", "not found". `root` is the directory of the workload file.
 */
export async function confinedPath(
  root: string,
  name: string,
): Promise<{ path: string } | { refused: string }> {
  if (path.isAbsolute(name)) {
    return { refused: 'absolute paths are not allowed: name a file relative to the workload file' };
  }
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(root);
    real = await realpath(path.resolve(root, name));
  } catch {
    return {
      refused: `not found (looked for ${path.resolve(root, name)}; paths are relative to the workload file)`,
    };
  }
  const inside = path.relative(realRoot, real);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
    return {
      refused: `it leads out of the workload's directory ${realRoot} (to ${real}): scripts must stay inside the workload file's directory tree, symlinks included`,
    };
  }
  return { path: real };
}
