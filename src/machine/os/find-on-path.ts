import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

/** The first executable `name` in a PATH-style list of directories, or undefined. */
export async function findOnPath(name: string, searchPath: string | undefined): Promise<string | undefined> {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
