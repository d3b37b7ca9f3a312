/**
 * The results file sink and the atomic write under simulated write failures (a small in-memory disk that
 * runs full, an fsync that fails with EIO, a write that lands half its bytes on the real disk): every
 * failure is a FileWriteError naming the file and the errno, the previous document stays intact and
 * parseable, no temp file is left, and after a full disk the final document (status 'failed', every
 * sample) still lands in the room the sink kept. The real disk running full is
 * test/integration/faults.int.test.ts. On a forced exit (a second signal, a crash) the cleanup registry
 * finishes the document (interrupted or failed) after the write in progress, and nothing is written after
 * it; the real signals are test/integration/run-endings.int.test.ts.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResults, readResults } from '../../src/store/read-results.js';
import { combineSinks, fileSink, finishOnForcedExit, type ResultSink } from '../../src/run/sink.js';
import { runCleanups } from '../../src/machine/os/cleanup.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import {
  FileWriteError,
  nodeWriteFs,
  writeAtomically,
  type WriteFs,
  type WriteHandle,
} from '../../src/machine/os/atomic-write.js';
import { syntheticRun } from '../../testkit/synthetic-run.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

/** A node-style errno error ("ENOSPC: no space left on device, write"). */
function errno(code: string, text: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${text}, ${syscall}`), { code, syscall });
}

/**
 * A disk in memory with `capacity` bytes: a write that does not fit stores what fits and fails with
 * ENOSPC, as a real file system does. `fail` can make any operation on a path fail. Every call is logged.
 */
class SimDisk implements WriteFs {
  readonly files = new Map<string, Buffer>();
  readonly dirs = new Set<string>(['/']);
  readonly log: string[] = [];
  fail: (op: string, file: string) => NodeJS.ErrnoException | undefined = () => undefined;

  constructor(public capacity: number) {}

  get used(): number {
    return [...this.files.values()].reduce((n, b) => n + b.length, 0);
  }

  text(file: string): string {
    return this.files.get(file)!.toString('utf8');
  }

  /** The files on the disk (to check that no temp file or reserve is left). */
  get paths(): string[] {
    return [...this.files.keys()];
  }

  private check(op: string, file: string): void {
    this.log.push(`${op} ${file}`);
    const e = this.fail(op, file);
    if (e) throw e;
  }

  async open(file: string, flags: 'wx' | 'w' | 'a' | 'r'): Promise<WriteHandle> {
    this.check(`open(${flags})`, file);
    if (flags === 'r') {
      if (!this.dirs.has(file) && !this.files.has(file)) throw errno('ENOENT', 'no such file', 'open');
    } else {
      if (!this.dirs.has(path.dirname(file))) throw errno('ENOENT', 'no such directory', 'open');
      if (flags === 'wx' && this.files.has(file)) throw errno('EEXIST', 'file already exists', 'open');
      if (flags !== 'a' || !this.files.has(file)) this.files.set(file, Buffer.alloc(0));
    }
    return {
      writeFile: async (data) => {
        this.check('write', file);
        const bytes = Buffer.from(data);
        const room = Math.max(0, this.capacity - this.used);
        const current = this.files.get(file) ?? Buffer.alloc(0);
        this.files.set(file, Buffer.concat([current, bytes.subarray(0, room)]));
        if (bytes.length > room) throw errno('ENOSPC', 'no space left on device', 'write');
      },
      sync: async () => this.check('fsync', file),
      close: async () => this.check('close', file),
    };
  }

  async rename(from: string, to: string): Promise<void> {
    this.check('rename', `${from} -> ${to}`);
    const data = this.files.get(from);
    if (!data) throw errno('ENOENT', 'no such file', 'rename');
    this.files.delete(from);
    this.files.set(to, data);
  }

  async rm(file: string): Promise<void> {
    this.log.push(`rm ${file}`);
    this.files.delete(file);
  }

  async mkdir(dir: string): Promise<void> {
    for (let d = dir; d !== '/'; d = path.dirname(d)) this.dirs.add(d);
  }
}

const DIR = '/out/run-1';
const FILE = `${DIR}/results.json`;
/** The room the file sink keeps beside the results file for its final write. */
const RESERVE = `${DIR}/.results.json.reserve`;

/** A roomy simulated disk with the run directory made. */
async function diskWithRunDir(): Promise<SimDisk> {
  const disk = new SimDisk(1e6);
  await disk.mkdir(DIR);
  return disk;
}

/** A file sink keeping a 1 KiB margin in its reserve, on a roomy simulated disk. */
function sinkOnDisk() {
  const disk = new SimDisk(1e6);
  return { disk, sink: fileSink(FILE, { fs: disk, reserveMarginBytes: 1024 }) };
}

/** A results document being measured: `samples` of a synthetic run, status 'running'. */
function runningDoc(all: RunResult, samples: number): RunResult {
  return {
    ...all,
    status: 'running',
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, samples)).toISOString(),
    samples: all.samples.slice(0, samples),
  };
}

describe('writeAtomically', () => {
  it('writes a temp file in the same directory, fsyncs it, renames it over the file, fsyncs the directory', async () => {
    const disk = await diskWithRunDir();
    await writeAtomically(FILE, 'new\n', { fs: disk });
    const steps = disk.log.map((l) => l.replace(/\.results\.json\.\d+\.[0-9a-f]+\.tmp/g, 'TMP'));
    expect(steps).toEqual([
      `open(wx) ${DIR}/TMP`,
      `write ${DIR}/TMP`,
      `fsync ${DIR}/TMP`,
      `close ${DIR}/TMP`,
      `rename ${DIR}/TMP -> ${FILE}`,
      `open(r) ${DIR}`,
      `fsync ${DIR}`,
      `close ${DIR}`,
    ]);
    expect(disk.text(FILE)).toBe('new\n');
    expect(disk.paths).toEqual([FILE]);
  });

  it.each([
    { op: 'write', code: 'ENOSPC', text: 'no space left on device' },
    { op: 'fsync', code: 'EIO', text: 'i/o error' },
    { op: 'close', code: 'EDQUOT', text: 'disk quota exceeded' },
    { op: 'rename', code: 'EXDEV', text: 'cross-device link not permitted' },
    { op: 'open(wx)', code: 'ENOSPC', text: 'no space left on device' },
  ])(
    'a failing $op ($code): a FileWriteError naming the file and the errno, the old file intact, no temp file',
    async ({ op, code, text }) => {
      const disk = await diskWithRunDir();
      await writeAtomically(FILE, 'old\n', { fs: disk });
      disk.fail = (o) => (o === op ? errno(code, text, op) : undefined);
      const error = await writeAtomically(FILE, 'new\n', { fs: disk }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FileWriteError);
      expect((error as FileWriteError).code).toBe(code);
      expect((error as FileWriteError).file).toBe(FILE);
      expect((error as Error).message).toMatch(`could not write ${FILE}: ${code} (${text})`);
      expect(disk.text(FILE)).toBe('old\n');
      expect(disk.paths).toEqual([FILE]);
    },
  );

  it('a failing directory fsync (EIO) is reported; one the file system cannot do (EINVAL) is skipped', async () => {
    const disk = await diskWithRunDir();
    disk.fail = (o, f) =>
      o === 'fsync' && f === DIR ? errno('EINVAL', 'invalid argument', 'fsync') : undefined;
    await writeAtomically(FILE, 'a\n', { fs: disk });
    disk.fail = (o, f) => (o === 'fsync' && f === DIR ? errno('EIO', 'i/o error', 'fsync') : undefined);
    await expect(writeAtomically(FILE, 'b\n', { fs: disk })).rejects.toThrow(
      `could not write ${FILE}: EIO (i/o error); it was renamed into place, but its directory ${DIR} could not be synced`,
    );
  });

  describe('on the real disk', () => {
    const tmp = useTmpDir('pgperf-atomic-');

    it('a write that lands half its bytes and then hits ENOSPC leaves the old file and no temp file', async () => {
      const file = path.join(tmp(), 'results.json');
      await writeFile(file, '{"old": true}\n');
      const halfThenFull: WriteFs = {
        ...nodeWriteFs,
        async open(f, flags, mode) {
          const handle = await nodeWriteFs.open(f, flags, mode);
          if (flags !== 'wx') return handle;
          return {
            writeFile: async (data) => {
              await handle.writeFile(String(data).slice(0, String(data).length / 2));
              throw errno('ENOSPC', 'no space left on device', 'write');
            },
            sync: () => handle.sync(),
            close: () => handle.close(),
          };
        },
      };
      await expect(writeAtomically(file, '{"new": true}\n', { fs: halfThenFull })).rejects.toThrow(
        `could not write ${file}: ENOSPC (no space left on device) (the disk is full: free space there, or write elsewhere)`,
      );
      expect(await readFile(file, 'utf8')).toBe('{"old": true}\n');
      expect(await readdir(tmp())).toEqual(['results.json']);
    });
  });
});

describe('fileSink', () => {
  const all = syntheticRun({ seed: 1, rounds: 6, workloads: { w: [1, 2] } });
  const tmp = useTmpDir('pgperf-sink-');

  it('the disk runs full mid-run: update fails naming the file and ENOSPC, the final document still lands', async () => {
    const disk = new SimDisk(0);
    const margin = 4096;
    const sink = fileSink(FILE, { fs: disk, reserveMarginBytes: margin });
    // Room for the first documents and the reserve, not for all of them.
    const size = (n: number) => Buffer.byteLength(`${JSON.stringify(runningDoc(all, n), null, 2)}\n`);
    disk.capacity = 2 * size(4) + size(0) + 4 * margin;
    let failed: unknown;
    let landed = 0;
    const doc = runningDoc(all, 0);
    for (let n = 0; n <= all.samples.length; n++) {
      doc.samples = all.samples.slice(0, n);
      doc.updatedAt = runningDoc(all, n).updatedAt;
      try {
        await sink.update(doc);
      } catch (e) {
        failed = e;
        break;
      }
      landed = n;
      // Every document that landed is intact and readable.
      expect(parseResults(disk.text(FILE), FILE).samples).toHaveLength(n);
    }
    expect(failed).toBeInstanceOf(FileWriteError);
    expect((failed as FileWriteError).code).toBe('ENOSPC');
    expect((failed as Error).message).toMatch(`could not write ${FILE}: ENOSPC (no space left on device)`);
    expect(landed).toBeGreaterThanOrEqual(2);
    expect(parseResults(disk.text(FILE), FILE).samples).toHaveLength(landed);

    // The run loop stops and finishes with the sample whose write failed.
    doc.status = 'failed';
    doc.stopReason = (failed as Error).message;
    await sink.finish(doc);
    const final = parseResults(disk.text(FILE), FILE);
    expect(final.status).toBe('failed');
    expect(final.stopReason).toMatch(/ENOSPC/);
    expect(final.samples).toEqual(all.samples.slice(0, landed + 1));
    // The reserve is gone, and no temp file is left.
    expect(disk.paths).toEqual([FILE]);
  });

  it('no room to grow the reserve: update fails before the document outgrows it, the final document lands', async () => {
    const { disk, sink } = sinkOnDisk();
    await sink.update(runningDoc(all, 1));
    disk.fail = (op, f) =>
      op === 'write' && f === RESERVE ? errno('ENOSPC', 'no space left on device', 'write') : undefined;
    // Enough samples to outgrow the reserve kept for one.
    const error = await sink.update(runningDoc(all, all.samples.length)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^could not write ${FILE}: ENOSPC \\(no space left on device\\); the room kept beside it for its final write \\(${RESERVE}, \\d+ bytes\\) could not be reserved, so the run stops while the results can still be written`,
      ),
    );
    expect(parseResults(disk.text(FILE), FILE).samples).toHaveLength(1);
    disk.fail = () => undefined;
    await sink.finish({ ...runningDoc(all, all.samples.length), status: 'failed', stopReason: 'disk full' });
    expect(parseResults(disk.text(FILE), FILE).status).toBe('failed');
    expect(disk.paths).toEqual([FILE]);
  });

  it('a final write that cannot land says where the last intact copy is', async () => {
    const { disk, sink } = sinkOnDisk();
    const doc = runningDoc(all, 3);
    await sink.update(doc);
    disk.fail = (op) => (op === 'write' ? errno('EIO', 'i/o error', 'write') : undefined);
    const done = { ...doc, status: 'failed' as const, samples: all.samples.slice(0, 4) };
    const error = await sink.finish(done).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as Error).message).toBe(
      `could not write ${FILE}: EIO (i/o error); the final document (status 'failed', 4 samples) did not land; ` +
        `the last intact copy is ${FILE} as written at ${doc.updatedAt} (3 samples, status 'running')`,
    );
    expect(parseResults(disk.text(FILE), FILE).samples).toHaveLength(3);
    expect(disk.paths).toEqual([FILE]);
  });

  it('keeps a reserve beside the file while running and removes it at the end', async () => {
    const { disk, sink } = sinkOnDisk();
    await sink.update(runningDoc(all, 1));
    expect(disk.files.get(RESERVE)!.length).toBeGreaterThanOrEqual(disk.files.get(FILE)!.length + 1024);
    await sink.finish({ ...runningDoc(all, 1), status: 'complete' });
    expect(disk.paths).toEqual([FILE]);
  });

  it('on the real disk: results readable by readResults, nothing else left', async () => {
    const file = path.join(tmp(), 'run', 'results.json');
    const sink = fileSink(file);
    await sink.update(runningDoc(all, 2));
    expect((await readResults(file)).samples).toHaveLength(2);
    await sink.finish({ ...runningDoc(all, 3), status: 'complete' });
    expect((await readResults(file)).status).toBe('complete');
    expect(await readdir(path.dirname(file))).toEqual(['results.json']);
  });
});

describe('a forced exit (a second signal, a crash)', () => {
  const all = syntheticRun({ seed: 1, rounds: 6, workloads: { w: [1, 2] } });

  /** SimDisk whose fsync of a temp file waits until `release()`: an update caught mid-write. */
  function diskHoldingTempSync(disk: SimDisk) {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let onHeld!: () => void;
    const held = new Promise<void>((r) => (onHeld = r));
    const fs: WriteFs = {
      open: async (file, flags) => {
        const handle = await disk.open(file, flags);
        if (!file.endsWith('.tmp')) return handle;
        return {
          ...handle,
          sync: async () => {
            onHeld();
            await released;
            await handle.sync();
          },
        };
      },
      rename: (from, to) => disk.rename(from, to),
      rm: (file) => disk.rm(file),
      mkdir: (dir) => disk.mkdir(dir),
    };
    return { fs, held, release };
  }

  it('the final document waits for an update still writing, lands after it, and leaves no temp file or reserve', async () => {
    const disk = new SimDisk(1e6);
    const slow = diskHoldingTempSync(disk);
    const sink = fileSink(FILE, { fs: slow.fs, reserveMarginBytes: 1024 });
    const doc = runningDoc(all, 2);
    const unregister = finishOnForcedExit(sink, doc, AbortSignal.abort());
    const updating = sink.update(doc);
    await slow.held;
    // The second signal: the cleanup registry finishes the document first, while the update is mid-write.
    const forced = runCleanups();
    await new Promise((r) => setTimeout(r, 20));
    slow.release();
    await Promise.all([updating, forced]);
    unregister();

    const onDisk = parseResults(disk.text(FILE), FILE);
    expect(onDisk.status).toBe('interrupted');
    expect(onDisk.stopReason).toMatch(/^interrupted \(signal; forced exit/);
    expect(onDisk.samples).toHaveLength(2);
    expect(disk.paths).toEqual([FILE]);
    // Nothing is written after the final document: a late update of the run loop changes nothing.
    const writes = disk.log.length;
    await sink.update({ ...doc, status: 'running' });
    await sink.finish({ ...doc, status: 'complete' });
    expect(disk.log.length).toBe(writes);
    expect(parseResults(disk.text(FILE), FILE).status).toBe('interrupted');
  });

  it('a running document becomes interrupted (signal) or failed (crash); an ended one is kept as it is', async () => {
    const cases: Array<[RunResult['status'], AbortSignal | undefined, string, RegExp | undefined]> = [
      ['running', AbortSignal.abort(), 'interrupted', /^interrupted \(signal; forced exit/],
      ['running', undefined, 'failed', /^pgperf ended before the run did/],
      ['running', new AbortController().signal, 'failed', /^pgperf ended before the run did/],
      ['complete', AbortSignal.abort(), 'complete', undefined],
    ];
    for (const [status, signal, expected, reason] of cases) {
      const { disk, sink } = sinkOnDisk();
      const doc = { ...runningDoc(all, 1), status };
      await sink.update(doc);
      finishOnForcedExit(sink, doc, signal);
      await runCleanups();
      const onDisk = parseResults(disk.text(FILE), FILE);
      expect(onDisk.status).toBe(expected);
      if (reason) expect(onDisk.stopReason).toMatch(reason);
      expect(disk.paths).toEqual([FILE]);
    }
  });

  it('only sinks that land at once are finished: a store (no finishNow) is left out', async () => {
    const { disk, sink: file } = sinkOnDisk();
    const stored: string[] = [];
    const store: ResultSink = {
      description: 'a store',
      update: async () => {},
      finish: async (r) => void stored.push(r.status),
    };
    const doc = runningDoc(all, 1);
    const both = combineSinks(file, store);
    await both.update(doc);
    finishOnForcedExit(both, doc, AbortSignal.abort());
    await runCleanups();
    expect(parseResults(disk.text(FILE), FILE).status).toBe('interrupted');
    expect(stored).toEqual([]);
  });
});
