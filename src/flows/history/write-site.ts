import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomically } from '../../machine/os/atomic-write.js';
import type { SiteFile } from '../../core/report/history/page-html.js';

/** Writes the site's files into `dir` (created if needed), each atomically (temp file, then rename). */
export async function writeSite(dir: string, files: readonly SiteFile[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const f of files) {
    const target = path.join(dir, f.file);
    await writeAtomically(target, f.html);
    written.push(target);
  }
  return written;
}
