/**
 * Reading sysfs/procfs under a root directory ('/' on a real machine, a fixture tree in tests), so
 * that every machine fact is parsed from the same files whether it comes from this machine or from a
 * captured many-core box. Missing or unreadable files are `undefined`, never guessed.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** The file at `rel` (e.g. "proc/stat") under `root`, or undefined when it cannot be read. */
export async function readText(root: string, rel: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(root, rel), 'utf8');
  } catch {
    return undefined;
  }
}

/** The trimmed content of a one-value file (sysfs style), or undefined. */
export async function readValue(root: string, rel: string): Promise<string | undefined> {
  const text = await readText(root, rel);
  return text === undefined ? undefined : text.trim();
}

/** A one-integer file, or undefined when missing or not an integer. */
export async function readInt(root: string, rel: string): Promise<number | undefined> {
  const text = await readValue(root, rel);
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

/** Directory entries matching a pattern, or [] when the directory is missing. */
export async function listDir(root: string, rel: string, pattern: RegExp): Promise<string[]> {
  try {
    return (await readdir(path.join(root, rel))).filter((e) => pattern.test(e));
  } catch {
    return [];
  }
}

/**
 * A kernel CPU list ("0-3,8,10-11") as sorted, distinct numbers. Throws on anything else, with the
 * text in the message; `what` names where it came from.
 */
export function parseCpuList(text: string, what = 'CPU list'): number[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const cpus = new Set<number>();
  for (const part of trimmed.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`${what}: "${text}" is not a CPU list like 0-3,8,10-11`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new Error(`${what}: range "${part}" runs backwards`);
    for (let c = from; c <= to; c++) cpus.add(c);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The shortest kernel-style CPU list for a set of CPUs: [0,1,2,3,8] -> "0-3,8". */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
