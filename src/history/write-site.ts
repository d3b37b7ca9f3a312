import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SiteFile } from './page-html.js';

/** Writes the site's files into `dir` (created if needed), each atomically (temp file, then rename). */
export async function writeSite(dir: string, files: readonly SiteFile[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const f of files) {
    const target = path.join(dir, f.file);
    const tmp = path.join(dir, `.${f.file}.${process.pid}.tmp`);
    await writeFile(tmp, f.html, 'utf8');
    await rename(tmp, target);
    written.push(target);
  }
  return written;
}
