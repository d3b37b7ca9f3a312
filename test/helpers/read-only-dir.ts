/**
 * A directory in which nobody, root included, may create a file: mode 0555, and as root also the immutable
 * attribute (`chattr +i`), since root ignores modes. Proven by trying to create a file in it. Where this file
 * system cannot make one (no chattr, a file system without the attribute), the reason instead, to be shown
 * in the name of the tests that need it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type ReadOnlyDir = { ok: true; dir: string; release(): void } | { ok: false; why: string };

/** Makes `parent/name` read-only; release() makes it writable again (call it before removing `parent`). */
export function makeReadOnlyDir(parent: string, name = 'read-only'): ReadOnlyDir {
  const dir = path.join(parent, name);
  mkdirSync(dir);
  const root = process.getuid?.() === 0;
  const release = () => {
    if (root) {
      try {
        execFileSync('chattr', ['-i', dir], { stdio: 'pipe' });
      } catch {
        // Never set.
      }
    }
    chmodSync(dir, 0o755);
  };
  try {
    chmodSync(dir, 0o555);
    if (root) execFileSync('chattr', ['+i', dir], { stdio: 'pipe' });
  } catch (e) {
    release();
    return { ok: false, why: `cannot make a read-only directory here: ${firstLine(e)}` };
  }
  try {
    writeFileSync(path.join(dir, 'probe'), 'x');
  } catch {
    return { ok: true, dir, release };
  }
  rmSync(path.join(dir, 'probe'), { force: true });
  release();
  return { ok: false, why: 'cannot make a read-only directory here: a file could still be created in it' };
}

function firstLine(e: unknown): string {
  const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
  return (stderr || (e instanceof Error ? e.message : String(e))).split('\n')[0]!;
}
