/**
 * Reads of files someone else named have an end (issue #40 item 5): a FIFO, a symlink to one, a directory
 * or a device is refused at once, naming what it is; a FIFO put in place between the check and the open
 * opens without waiting and is refused; a file system that does not answer (a hung mount, stood in for by a
 * stat that never returns) is an error after the deadline, and a first SIGINT (an abort) ends the wait.
 */
import { execFileSync } from 'node:child_process';
import { open, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FileReadError,
  readRegularFile,
  readRegularFileBytes,
  withDeadline,
} from '../../../src/machine/os/regular-file.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const tmp = useTmpDir('pgperf-regular-file-');

/** A FIFO nobody writes: the file that never delivers. */
function fifo(name: string): string {
  const file = path.join(tmp(), name);
  execFileSync('mkfifo', [file]);
  return file;
}

/** What `attempt` threw, and how long it took. */
async function refusal(attempt: () => Promise<unknown>): Promise<{ error: FileReadError; ms: number }> {
  const start = Date.now();
  const error = await attempt().then(
    () => {
      throw new Error('read, expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileReadError);
  return { error: error as FileReadError, ms: Date.now() - start };
}

describe('readRegularFile', () => {
  it('reads a regular file, also through a symlink', async () => {
    const file = path.join(tmp(), 'a.json');
    await writeFile(file, '{"a":1}\n');
    await symlink(file, path.join(tmp(), 'link.json'));
    expect(await readRegularFile(file)).toBe('{"a":1}\n');
    expect(await readRegularFile(path.join(tmp(), 'link.json'))).toBe('{"a":1}\n');
    expect((await readRegularFileBytes(file)).length).toBe(8);
  });

  it('refuses a FIFO at once, naming it: "is a FIFO, expected a regular file"', async () => {
    const file = fifo('run.json');
    const { error, ms } = await refusal(() => readRegularFile(file));
    expect(error.message).toBe(`${file}: is a FIFO, expected a regular file`);
    expect(error.code).toBe('ENOTREG');
    expect(ms).toBeLessThan(2000);
  });

  it('refuses a symlink to a FIFO, a directory and a device, saying what each is', async () => {
    const target = fifo('target.fifo');
    const link = path.join(tmp(), 'innocent.patch');
    await symlink(target, link);
    expect((await refusal(() => readRegularFile(link))).error.reason).toBe(
      'is a FIFO, expected a regular file',
    );
    expect((await refusal(() => readRegularFile(tmp()))).error.reason).toBe(
      'is a directory, expected a regular file',
    );
    expect(
      (await refusal(() => readRegularFile('/dev/zero', { expected: 'a YAML workload file' }))).error.reason,
    ).toBe('is a character device, expected a YAML workload file');
  });

  it('names a missing file with the OS code, and a file over maxBytes by its size', async () => {
    const missing = await refusal(() => readRegularFile(path.join(tmp(), 'nope')));
    expect(missing.error.reason).toBe('cannot read it (ENOENT)');
    expect(missing.error.code).toBe('ENOENT');
    expect(missing.error.fromOs).toBe(true);
    const big = path.join(tmp(), 'big');
    await writeFile(big, 'x'.repeat(100));
    expect((await refusal(() => readRegularFile(big, { maxBytes: 10 }))).error.reason).toBe(
      'is 100 bytes, larger than the 10 allowed for a regular file',
    );
  });

  it('a FIFO swapped in after the check opens without waiting and is refused on the open descriptor', async () => {
    const regular = path.join(tmp(), 'regular');
    await writeFile(regular, 'x');
    const swapped = fifo('swapped');
    // The check sees a regular file; the open finds the FIFO (as if it were renamed in between).
    const { error, ms } = await refusal(() =>
      readRegularFile(swapped, {}, { stat: () => stat(regular), open }),
    );
    expect(error.reason).toBe('is a FIFO, expected a regular file');
    expect(ms).toBeLessThan(2000);
  });

  it('a file system that never answers is an error after the deadline, naming the file', async () => {
    const never = () => new Promise<never>(() => {});
    const { error, ms } = await refusal(() =>
      readRegularFile('/mnt/hung/run.json', { timeoutMs: 200 }, { stat: never, open }),
    );
    expect(error.message).toBe(
      '/mnt/hung/run.json: no answer in 0.2 s (a hung network mount?); expected a regular file that can be read',
    );
    expect(error.code).toBe('ETIMEDOUT');
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(ms).toBeLessThan(2000);
  });

  it('an abort (the first SIGINT) ends the wait at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { error, ms } = await refusal(() =>
      withDeadline('/mnt/hung/runs', new Promise(() => {}), { signal: controller.signal }),
    );
    expect(error.reason).toBe('not read: stopped');
    expect(ms).toBeLessThan(2000);
  });
});
