/**
 * The Action's results store: the `store` input (a directory in the workspace or a postgresql:// URL), or
 * the directory store kept on a data branch of the workflow's repository (`store-branch`). Gives the
 * pipeline a reader (for stored baselines) and an archive every benchmark run is saved to.
 */
import path from 'node:path';
import type { RunArchive } from '../../flows/compare/pipeline/pipeline.js';
import type { RemoteCredentials } from '../../store/branch/data-branch.js';
import { openBranchStore, type BranchStore } from '../../store/branch/branch-store.js';
import { isPostgresUrl } from '../../store/open/open-store.js';
import type { ResultStore } from '../../store/store.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { ActionInputs } from './inputs.js';

/** How the adapter opens stores (src/action.ts: openStore with the runner's home). */
export interface StoreAccess {
  open(spec: string, write: boolean): Promise<ResultStore>;
  /** Parent of private temp directories (RUNNER_TEMP). */
  tempDir: string;
  /**
   * The workflow's repository as a git remote URL, without credentials (it is written to the work tree's
   * .git/config); required for store-branch.
   */
  dataBranchRemote?: string;
  /** The token as credentials for that remote: given to git per command, never written to disk. */
  dataBranchCredentials?: RemoteCredentials;
}

/** The store a mode reads and saves to; with store-branch, also what publishes on the branch. */
export interface ActionStore extends Pick<BranchStore, 'reader' | 'close'> {
  archive: RunArchive;
  publishOnBranch?: BranchStore['publishOnBranch'];
}

/**
 * The store the inputs name (store, store-branch), opened; undefined when neither is set. A runner that
 * cannot open stores is refused when one is set, never silently measured without it.
 */
export async function openInputStore(
  inputs: Pick<ActionInputs, 'store' | 'storeBranch'>,
  workspace: string,
  deps: { stores?: StoreAccess; runner: ProcessRunner; logger: Logger; signal?: AbortSignal },
): Promise<ActionStore | undefined> {
  if (!inputs.store && !inputs.storeBranch) return undefined;
  if (!deps.stores) {
    throw new UserError("inputs 'store'/'store-branch' are set but this runner cannot open a store");
  }
  return openActionStore(inputs, workspace, deps.stores, deps);
}

export async function openActionStore(
  inputs: Pick<ActionInputs, 'store' | 'storeBranch'>,
  workspace: string,
  access: StoreAccess,
  deps: { runner: ProcessRunner; logger: Logger; signal?: AbortSignal },
): Promise<ActionStore | undefined> {
  if (inputs.storeBranch) {
    if (inputs.store && (path.isAbsolute(inputs.store) || inputs.store.split(/[\\/]/).includes('..'))) {
      throw new UserError(
        `input 'store' is '${inputs.store}', but with 'store-branch' it is the directory inside the branch: expected a relative path such as store`,
      );
    }
    if (!access.dataBranchRemote) {
      throw new UserError(
        `input 'store-branch' (${inputs.storeBranch}) pushes to the workflow's repository: pass 'github-token' with contents: write`,
      );
    }
    return openBranchStore(
      {
        remote: access.dataBranchRemote,
        ...(access.dataBranchCredentials ? { credentials: access.dataBranchCredentials } : {}),
        branch: inputs.storeBranch,
        tempDir: access.tempDir,
        ...(inputs.store ? { storePath: inputs.store } : {}),
      },
      (spec, write) => access.open(spec, write),
      deps,
    );
  }
  if (!inputs.store) return undefined;
  const spec = isPostgresUrl(inputs.store) ? inputs.store : path.resolve(workspace, inputs.store);
  const store = await access.open(spec, true);
  return { reader: store, archive: store, close: () => store.close() };
}
