/**
 * `/proc/<pid>/smaps_rollup` (Linux 4.14+): one process's memory summed over its mappings, in kB per field
 * ("Rss:  28740 kB", "Anonymous:  2200 kB", ...). Parsed into bytes per field, and read for one process with
 * the outcomes a sampler must tell apart: read, gone (the backend exited), or not readable by this user.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/util/errors.js';

/**
 * Every "Field:  N kB" line of a smaps_rollup text as bytes, by field name; the header line (the address
 * range and "[rollup]") and anything else without a kB value are left out.
 *
 * @example parseSmapsRollup('Rss:  28740 kB\nAnonymous:  2200 kB\n').get('Anonymous') === 2_252_800
 */
export function parseSmapsRollup(text: string): Map<string, number> {
  const fields = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_]+):\s+(\d+) kB\s*$/.exec(line);
    if (m) fields.set(m[1]!, Number(m[2]) * 1024);
  }
  return fields;
}

export type SmapsReading =
  | { kind: 'read'; bytes: number }
  /** The process exited (or never was): not a reading, not a failure. */
  | { kind: 'gone' }
  /** This user may not read it, or the kernel has no such file or field: the memory is not recorded. */
  | { kind: 'unreadable'; reason: string };

/** One process's `field` (bytes) from its smaps_rollup under `procRoot`. */
export async function readSmapsField(procRoot: string, pid: number, field: string): Promise<SmapsReading> {
  const file = path.join(procRoot, String(pid), 'smaps_rollup');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return { kind: 'gone' };
    if (code === 'ENOENT') {
      // No process directory: it exited. A directory without the file: a kernel before 4.14.
      const alive = await readFile(path.join(procRoot, String(pid), 'stat'), 'utf8').then(
        () => true,
        () => false,
      );
      return alive
        ? { kind: 'unreadable', reason: `${file} does not exist (Linux 4.14+)` }
        : { kind: 'gone' };
    }
    return { kind: 'unreadable', reason: `cannot read ${file}: ${errorMessage(e)}` };
  }
  // An exiting process can leave an empty file behind.
  if (text.trim() === '') return { kind: 'gone' };
  const bytes = parseSmapsRollup(text).get(field);
  return bytes === undefined
    ? { kind: 'unreadable', reason: `${file} has no ${field} field` }
    : { kind: 'read', bytes };
}
