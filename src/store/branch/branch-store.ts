/**
 * A directory store kept on a data branch of a git repository (the Action's `store-branch`): read from a
 * checkout of the branch, and every run saved as a commit pushed with the branch's retries (data-branch.ts),
 * so runners that share nothing but the repository share one history.
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from '../../core/results/result-types.js';
import type { ResultStore } from '../store.js';
import { DataBranch, type DataBranchDeps, type Published, type RemoteCredentials } from './data-branch.js';

export interface BranchStoreSpec {
  /** The repository as a git remote URL, without credentials (it is written to the work tree's .git/config). */
  remote: string;
  /** Given to git per command, never written to disk. */
  credentials?: RemoteCredentials;
  branch: string;
  /** Parent of the checkout's private temp directory. */
  tempDir: string;
  /** The store's directory inside the branch (default: the data branch's own). */
  storePath?: string;
}

export interface BranchStore {
  /** The checkout's store: stored baselines and history are read here. */
  reader: ResultStore;
  /** Saves a run as a commit on the branch; reads as the reader does (so a comparison gets this runner's noise). */
  archive: Pick<ResultStore, 'description' | 'list' | 'load'> & {
    save(result: RunResult): Promise<{ id: string }>;
  };
  /**
   * `write` fills `relative` (a directory of the branch; it gets the store's directory in the branch too, to
   * read the history it renders), then that directory is committed and pushed with the store's retries.
   * `write` runs again on top of the fetched branch after a conflicting push.
   */
  publishOnBranch(
    relative: string,
    write: (dir: string, storeDir: string) => Promise<string>,
  ): Promise<Published>;
  close(): Promise<void>;
}

/** Checks the branch out and opens its store with `open`; the work tree is removed by close() (and on failure). */
export async function openBranchStore(
  spec: BranchStoreSpec,
  open: (dir: string, write: boolean) => Promise<ResultStore>,
  deps: DataBranchDeps,
): Promise<BranchStore> {
  // The work tree is removed by close(), by a failed checkout, and by the cleanup registry on a forced exit.
  const branch = await DataBranch.checkout(
    {
      remote: spec.remote,
      ...(spec.credentials ? { credentials: spec.credentials } : {}),
      branch: spec.branch,
      workDir: await mkdtemp(path.join(spec.tempDir, 'pgperf-data-branch-')),
      ...(spec.storePath ? { storePath: spec.storePath } : {}),
    },
    deps,
  );
  let reader: ResultStore;
  try {
    reader = await open(branch.storeDir, true);
  } catch (e) {
    await branch.close();
    throw e;
  }
  return {
    reader,
    archive: {
      description: `branch ${spec.branch} (${reader.description})`,
      list: (filter) => reader.list(filter),
      load: (id) => reader.load(id),
      save: async (result) => {
        let id = '';
        await branch.publish(async (dir) => {
          const store = await open(dir, true);
          try {
            id = (await store.save(result)).id;
          } finally {
            await store.close();
          }
          return `pgperf: run ${id}`;
        });
        return { id };
      },
    },
    publishOnBranch: (relative, write) =>
      branch.publish((storeDir) => write(branch.pathOf(relative), storeDir), [relative]),
    close: async () => {
      try {
        await reader.close();
      } finally {
        await branch.close();
      }
    },
  };
}
