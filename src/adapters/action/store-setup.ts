/**
 * The Action's results store: the `store` input (a directory in the workspace or a postgresql:// URL), or
 * the directory store kept on a data branch of the workflow's repository (`store-branch`), chosen by the
 * one chooser (src/store/open/choose-store.ts) with the inputs' names. Gives the pipeline a reader (for
 * stored baselines) and an archive every benchmark run is saved to.
 */
import type { RemoteCredentials } from '../../store/branch/data-branch.js';
import {
  chooseStore,
  type BranchNames,
  type ChosenStore,
  type OpenSpec,
} from '../../store/open/choose-store.js';
import { UserError } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import type { ProcessRunner } from '../../machine/os/process.js';
import type { ActionInputs } from './inputs.js';

/** How the adapter opens stores (src/action.ts: openStore with the runner's home). */
export interface StoreAccess {
  open: OpenSpec;
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
export type ActionStore = ChosenStore;

/** The inputs as the store chooser names them. */
const BRANCH_NAMES: BranchNames = {
  store: "input 'store'",
  branch: "input 'store-branch'",
  branchInSentence: "'store-branch'",
  access: "pass 'github-token' with contents: write",
};

/**
 * How this runner opens the store the inputs name (undefined when they name none); a runner that cannot
 * open stores is refused when one is set, before any work, never silently measured without it.
 */
export function storeAccess(
  inputs: Pick<ActionInputs, 'store' | 'storeBranch'>,
  deps: { stores?: StoreAccess },
): StoreAccess | undefined {
  if (!inputs.store && !inputs.storeBranch) return undefined;
  if (!deps.stores) {
    throw new UserError("inputs 'store'/'store-branch' are set but this runner cannot open a store");
  }
  return deps.stores;
}

/** The store the inputs name (store, store-branch), opened; undefined when neither is set. */
export async function openInputStore(
  inputs: Pick<ActionInputs, 'store' | 'storeBranch'>,
  workspace: string,
  deps: { stores?: StoreAccess; runner: ProcessRunner; logger: Logger; signal?: AbortSignal },
): Promise<ActionStore | undefined> {
  const access = storeAccess(inputs, deps);
  if (!access) return undefined;
  const git = { runner: deps.runner, logger: deps.logger, ...(deps.signal ? { signal: deps.signal } : {}) };
  return chooseStore(
    {
      spec: inputs.store,
      baseDir: workspace,
      unset: 'none',
      write: true,
      ...(inputs.storeBranch
        ? {
            branch: {
              name: inputs.storeBranch,
              ...(access.dataBranchRemote ? { remote: access.dataBranchRemote } : {}),
              ...(access.dataBranchCredentials ? { credentials: access.dataBranchCredentials } : {}),
              tempDir: access.tempDir,
              names: BRANCH_NAMES,
              git,
            },
          }
        : {}),
    },
    access.open,
  );
}
