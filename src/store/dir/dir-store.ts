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
import { access, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { readResults } from '../read-results.js';
import type { RunResult } from '../../core/results/types.js';
import { writeAtomically } from '../../machine/os/atomic-write.js';
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
   * Opens the store at `dir`. With `write`, creates it and checks that it is writable now (so a run
   * fails before measuring, not after); otherwise a missing directory is an empty store.
   */
  static async open(dir: string, options: DirStoreOptions & { write?: boolean }): Promise<DirStore> {
    const store = new DirStore(path.resolve(dir), options);
    const st = await stat(store.dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw store.notUsable(e);
    });
    if (st && !st.isDirectory()) {
      throw new UserError(
        `store directory ${store.dir} is not a directory; pass --store with a directory or a postgresql:// URL`,
      );
    }
    if (options.write) await store.ensureWritable();
    return store;
  }

  async save(result: RunResult): Promise<StoredRun> {
    const doc = documentToStore(result, 'results document');
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
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UserError(
          `no run '${id}' in ${this.description}; "pgperf store list" shows the stored runs`,
        );
      }
      throw new UserError(`cannot read ${file}: ${errorMessage(e)}`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new UserError(
        `${file} is corrupt (not valid JSON: ${errorMessage(e)}); restore it or delete it and its index entry`,
      );
    }
    checkSchemaVersion((doc as { schemaVersion?: unknown } | null)?.schemaVersion, file);
    return readResults(file);
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
      const entry = JSON.parse(await readFile(this.entryFile(id), 'utf8')) as StoredRun;
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
      const parsed = JSON.parse(await readFile(file, 'utf8')) as RunResult;
      checkSchemaVersion(parsed?.schemaVersion, file);
      if (
        !Array.isArray(parsed.arms) ||
        !Array.isArray(parsed.samples) ||
        !Array.isArray(parsed.plan?.cells)
      ) {
        throw new Error('not a results document (no arms, samples or plan.cells)');
      }
      doc = documentToStore({ ...parsed, runId: parsed.runId ?? id }, file);
    } catch (e) {
      this.options.warn(`skipping ${file}: ${errorMessage(e)}`);
      return undefined;
    }
    const savedAt = (await stat(file)).mtime.toISOString();
    const entry = summarize(doc, savedAt);
    try {
      await mkdir(this.indexDir, { recursive: true });
      await writeAtomically(this.entryFile(id), `${JSON.stringify(entry)}\n`);
    } catch {
      // A read-only store (a checked-out data branch, another user's directory) still lists.
    }
    return entry;
  }

  private async ensureWritable(): Promise<void> {
    try {
      await mkdir(this.runsDir, { recursive: true });
      await mkdir(this.indexDir, { recursive: true });
      await access(this.runsDir, constants.W_OK);
      await access(this.indexDir, constants.W_OK);
    } catch (e) {
      throw this.notUsable(e as NodeJS.ErrnoException);
    }
  }

  private notUsable(e: NodeJS.ErrnoException): UserError {
    return new UserError(
      `store directory ${this.dir} is not writable (${e.code ?? errorMessage(e)}): pass --store DIR ` +
        'with a directory you can write, set PGPERF_STORE, or fix its permissions',
    );
  }
}

/** Ids of the `*.json` files in a directory (temp files start with a dot); none when it does not exist. */
async function jsonNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .map((n) => n.slice(0, -5));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
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
