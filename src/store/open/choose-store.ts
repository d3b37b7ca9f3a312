/**
 * The one chooser of a results store, for both adapters: the spec a user gave (the CLI's `--store` or
 * $PGPERF_STORE, the Action's `store` input), a relative directory found from a base directory, nothing
 * given as the default directory store (the CLI) or as no store (the Action), and optionally a data branch
 * of the repository the directory store is kept on (the Action's `store-branch`). Each adapter passes only
 * its spelling of the names for the messages, and the function that opens a spec (open-store.ts, with its
 * warnings and the name the spec came from).
 */
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import { openBranchStore, type BranchStore } from '../branch/branch-store.js';
import type { DataBranchDeps, RemoteCredentials } from '../branch/data-branch.js';
import type { ResultStore } from '../store.js';

/** How an adapter spells the branch's options in messages (only the Action has one). */
export interface BranchNames {
  /** The spec's option: "input 'store'". */
  store: string;
  /** The branch's option: "input 'store-branch'". */
  branch: string;
  /** The branch's option inside a sentence: "'store-branch'". */
  branchInSentence: string;
  /** What gives the branch push access: "pass 'github-token' with contents: write". */
  access: string;
}

export interface StoreChoice {
  /** A directory or a postgresql:// URL as the user gave it; blank is nothing given. */
  spec?: string;
  /** Where a relative directory is found (the CLI's working directory, the Action's workspace). */
  baseDir: string;
  /** Nothing given: the default directory store, or no store at all. */
  unset: 'default' | 'none';
  /** The caller will save: the store is created and proven writable now, before any work is done. */
  write: boolean;
  /** A data branch of the repository the directory store is kept on; the spec is then the directory inside it. */
  branch?: {
    name: string;
    /** The repository as a git remote URL without credentials; required to push. */
    remote?: string;
    /** Given to git per command, never written to disk. */
    credentials?: RemoteCredentials;
    /** Parent of the checkout's private temp directory. */
    tempDir: string;
    names: BranchNames;
    git: DataBranchDeps;
  };
}

/** The store a command reads and saves to; on a data branch, also what publishes on the branch. */
export interface ChosenStore {
  /** Stored baselines and history are read here. */
  reader: ResultStore;
  /** Every run is saved here (on a data branch: as a commit pushed). */
  archive: BranchStore['archive'];
  publishOnBranch?: BranchStore['publishOnBranch'];
  close(): Promise<void>;
}

/** Opens a spec (undefined: the default directory store); open-store.ts's openStore with the adapter's options. */
export type OpenSpec = (spec: string | undefined, write: boolean) => Promise<ResultStore>;

export function chooseStore(choice: StoreChoice & { unset: 'default' }, open: OpenSpec): Promise<ChosenStore>;
export function chooseStore(choice: StoreChoice, open: OpenSpec): Promise<ChosenStore | undefined>;
export async function chooseStore(choice: StoreChoice, open: OpenSpec): Promise<ChosenStore | undefined> {
  const spec = choice.spec?.trim() || undefined;
  if (choice.branch) return onBranch(spec, choice.branch, open);
  if (spec === undefined && choice.unset === 'none') return undefined;
  const store = await open(spec === undefined ? undefined : located(spec, choice.baseDir), choice.write);
  return { reader: store, archive: store, close: () => store.close() };
}

/** A directory from the base directory; a URL (a database, or a scheme open-store.ts refuses) as given. */
function located(spec: string, baseDir: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(spec) ? spec : path.resolve(baseDir, spec);
}

function onBranch(
  spec: string | undefined,
  branch: NonNullable<StoreChoice['branch']>,
  open: OpenSpec,
): Promise<BranchStore> {
  const { names } = branch;
  if (spec && (path.isAbsolute(spec) || spec.split(/[\\/]/).includes('..'))) {
    throw new UserError(
      `${names.store} is '${spec}', but with ${names.branchInSentence} it is the directory inside the branch: expected a relative path such as store`,
    );
  }
  if (!branch.remote) {
    throw new UserError(
      `${names.branch} (${branch.name}) pushes to the workflow's repository: ${names.access}`,
    );
  }
  return openBranchStore(
    {
      remote: branch.remote,
      ...(branch.credentials ? { credentials: branch.credentials } : {}),
      branch: branch.name,
      tempDir: branch.tempDir,
      ...(spec ? { storePath: spec } : {}),
    },
    (dir, write) => open(dir, write),
    branch.git,
  );
}
