/**
 * The directory store, the embedded default: one JSON file per run, never one ever-growing file.
 *
 *   <dir>/runs/<id>.json    the results document (with runId and fingerprint)
 *   <dir>/index/<id>.json   its listing entry (StoredRun, a few hundred bytes)
 *
 * Every file is written atomically (a private temp file, fsync, rename), the run before its entry, so
 * a reader never sees half a file and a crash leaves at most a run without an entry. Two writers (two
 * processes, two runners sharing a directory, two branches merged by git) never write the same file
 * unless they save the same run, so nothing is lost and no lock is needed. The index is derived data:
 * a run file without an entry gets one on the next listing, and `rebuildIndex()` rewrites them all.
 * Listing reads only the small entries, so it stays fast with thousands of runs.
 */
import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { validateResults } from '../read-results.js';
import { jsonSyntaxError } from '../../core/util/json-syntax.js';
import type { RunResult } from '../../core/results/result-types.js';
import { writeAtomically } from '../../machine/os/atomic-write.js';
import { describeOsError, makeDirectory, probeDirectory } from '../../machine/os/writable-dir.js';
import { FileReadError, fileKind, readRegularFile, withDeadline } from '../../machine/os/regular-file.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import {
  checkRunId,
  checkSchemaVersion,
  documentToStore,
  matchesFilter,
  newestFirst,
  resolveFilter,
  summarize,
  type ResultStore,
  type RunFilter,
  type StoredRun,
} from '../store.js';

export interface DirStoreOptions {
  /** Where problems that are skipped (a corrupt file) are reported. */
  warn: (message: string) => void;
  /** Where the path came from, said first in an error ("--store", "input 'store'"). */
  what?: string;
  /** Clock for savedAt (tests). */
  now?: () => Date;
}

/** Files the store reads concurrently while listing (bounded, so a huge store does not exhaust fds). */
const READ_CONCURRENCY = 64;

export class DirStore implements ResultStore {
  readonly description: string;
  private readonly runsDir: string;
  private readonly indexDir: string;

  private constructor(
    readonly dir: string,
    private readonly options: DirStoreOptions,
  ) {
    this.description = `directory store ${dir}`;
    this.runsDir = path.join(dir, 'runs');
    this.indexDir = path.join(dir, 'index');
  }

  /**
   * Opens the store at `dir`. With `write`, creates it and proves that it is writable now (a file created and
   * removed in runs/ and index/), so a run fails before measuring, not after; otherwise a missing directory
   * is an empty store.
   */
  static async open(dir: string, options: DirStoreOptions & { write?: boolean }): Promise<DirStore> {
    const store = new DirStore(path.resolve(dir), options);
    // With a deadline: a store on a mount that hangs is an error, not a run that never starts.
    const st = await withDeadline(store.dir, stat(store.dir), { expected: 'a directory' }).catch(
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
        if (e instanceof FileReadError) throw new UserError(`${store.prefix}store directory ${e.message}`);
        throw store.notUsable(e.code ?? 'EIO', describeOsError(e));
      },
    );
    if (st && !st.isDirectory()) {
      throw new UserError(
        `${store.prefix}store directory ${store.dir} is not a directory (it is ${fileKind(st)}); ${store.give('a directory or a postgresql:// URL')}`,
      );
    }
    if (options.write) {
      for (const sub of [store.runsDir, store.indexDir]) {
        // Made first and kept: the probe removes what it made, which under another process writing the
        // same new store at once would pull its directory away (ENOENT on its next write).
        await makeDirectory(sub).catch(() => undefined);
        const found = await probeDirectory(sub);
        if (found) throw store.notUsable(found.code, found.text);
      }
    }
    return store;
  }

  async save(result: RunResult): Promise<StoredRun> {
    const doc = documentToStore(result, 'results document', this.options.warn);
    const entry = summarize(doc, (this.options.now?.() ?? new Date()).toISOString());
    await this.ensureWritable();
    await writeAtomically(this.runFile(entry.id), `${JSON.stringify(doc)}\n`);
    await writeAtomically(this.entryFile(entry.id), `${JSON.stringify(entry)}\n`);
    return entry;
  }

  async load(id: string): Promise<RunResult> {
    checkRunId(id);
    const file = this.runFile(id);
    let text: string;
    try {
      // Only a regular file, within a deadline: a FIFO or a hung mount never answers.
      text = await readRegularFile(file);
    } catch (e) {
      if (!(e instanceof FileReadError)) throw e;
      if (e.code === 'ENOENT') {
        throw new UserError(
          `no run '${id}' in ${this.description}; "pgperf store list" shows the stored runs`,
        );
      }
      throw new UserError(`${e.message} (run '${id}' of ${this.description})`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new UserError(
        `${file} is corrupt (not valid JSON: ${jsonSyntaxError(text)}); restore it or delete it and its index entry`,
      );
    }
    checkSchemaVersion((doc as { schemaVersion?: unknown } | null)?.schemaVersion, file);
    return validateResults(doc, file, { warn: this.options.warn });
  }

  async list(filter?: RunFilter): Promise<StoredRun[]> {
    const f = resolveFilter(filter);
    const [runNames, entryNames] = await Promise.all([jsonNames(this.runsDir), jsonNames(this.indexDir)]);
    const entries = new Set(entryNames);
    const runs: StoredRun[] = [];
    await forEachLimited(runNames, READ_CONCURRENCY, async (id) => {
      const entry = (entries.has(id) ? await this.readEntry(id) : undefined) ?? (await this.reindex(id));
      if (entry && matchesFilter(entry, f)) runs.push(entry);
    });
    runs.sort(newestFirst);
    return f.limit !== undefined ? runs.slice(0, f.limit) : runs;
  }

  /** Rewrites every index entry from the run files (after a restore, a merge, or by hand). */
  async rebuildIndex(): Promise<number> {
    const ids = await jsonNames(this.runsDir);
    let count = 0;
    await forEachLimited(ids, 8, async (id) => {
      if (await this.reindex(id)) count++;
    });
    return count;
  }

  async close(): Promise<void> {}

  private runFile(id: string): string {
    return path.join(this.runsDir, `${id}.json`);
  }

  private entryFile(id: string): string {
    return path.join(this.indexDir, `${id}.json`);
  }

  /** The listing entry, or undefined when it is unreadable (then it is rebuilt from the run). */
  private async readEntry(id: string): Promise<StoredRun | undefined> {
    try {
      const entry = JSON.parse(await readRegularFile(this.entryFile(id))) as StoredRun;
      if (entry && typeof entry.id === 'string' && typeof entry.startedAt === 'string') return entry;
    } catch {
      // Unreadable or half-copied: rebuilt below.
    }
    return undefined;
  }

  /**
   * The entry rebuilt from the run file and written back (when the store is writable). A corrupt or
   * unreadable run file is reported through `warn` and skipped: one bad file never hides the others.
   */
  private async reindex(id: string): Promise<StoredRun | undefined> {
    const file = this.runFile(id);
    let doc: RunResult;
    try {
      const text = await readRegularFile(file);
      let parsed: RunResult;
      try {
        parsed = JSON.parse(text) as RunResult;
      } catch {
        throw new Error(`not valid JSON (${jsonSyntaxError(text)})`);
      }
      checkSchemaVersion(parsed?.schemaVersion, file);
      // Checked as every reader checks a document (validateResults): a run that load() would refuse is not listed.
      doc = documentToStore({ ...parsed, runId: parsed.runId ?? id }, file, this.options.warn);
    } catch (e) {
      const message = errorMessage(e);
      const detail = message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
      this.options.warn(`skipping ${file}: not a results document this pgperf reads: ${detail}`);
      return undefined;
    }
    const savedAt = (await stat(file)).mtime.toISOString();
    const entry = summarize(doc, savedAt);
    try {
      await makeDirectory(this.indexDir);
      await writeAtomically(this.entryFile(id), `${JSON.stringify(entry)}\n`);
    } catch {
      // A read-only store (a checked-out data branch, another user's directory) still lists.
    }
    return entry;
  }

  private async ensureWritable(): Promise<void> {
    try {
      await makeDirectory(this.runsDir);
      await makeDirectory(this.indexDir);
      await access(this.runsDir, constants.W_OK);
      await access(this.indexDir, constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw this.notUsable(code ?? errorMessage(e), describeOsError(e));
    }
  }

  private get prefix(): string {
    return this.options.what ? `${this.options.what}: ` : '';
  }

  /** How to name another store: the Action's input, or the CLI's flag and variable. */
  private give(what: string): string {
    const input = this.options.what?.startsWith('input ') ? this.options.what : undefined;
    return input ? `set ${input} to ${what}` : `pass --store with ${what}`;
  }

  /** "store directory /s is not writable (EACCES): cannot create a file in it: ...; pass --store with ...". */
  private notUsable(code: string, detail: string): UserError {
    const cli = !this.options.what?.startsWith('input ');
    return new UserError(
      `${this.prefix}store directory ${this.dir} is not writable (${code}): ${detail}; ` +
        `${this.give('a directory you can write')}${cli ? ', set PGPERF_STORE,' : ''} or fix its permissions`,
    );
  }
}

/** Ids of the `*.json` files in a directory (temp files start with a dot); none when it does not exist. */
async function jsonNames(dir: string): Promise<string[]> {
  try {
    return (await withDeadline(dir, readdir(dir), { expected: 'a directory' }))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .map((n) => n.slice(0, -5));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    if (e instanceof FileReadError) throw new UserError(`store directory ${e.message}`);
    throw new UserError(`cannot read the store directory ${dir}: ${errorMessage(e)}`);
  }
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
