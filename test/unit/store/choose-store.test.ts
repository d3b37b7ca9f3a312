/**
 * The one store chooser (src/store/open/choose-store.ts) as both adapters use it: the Action's inputs
 * (store-setup.ts: a directory of the workspace, none when nothing is set, a data branch) and the CLI's
 * default store, with each surface's names in the refusals.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openInputStore } from '../../../src/adapters/action/store-setup.js';
import { chooseStore, type OpenSpec } from '../../../src/store/open/choose-store.js';
import { openStore } from '../../../src/store/open/open-store.js';
import type { ResultStore } from '../../../src/store/store.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../../src/machine/os/process.js';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const tmp = useTmpDir('pgperf-choose-store-');

/** An open that records the specs it is asked for and opens nothing. */
function recorder(): {
  specs: (string | undefined)[];
  open: (spec: string | undefined) => Promise<ResultStore>;
} {
  const specs: (string | undefined)[] = [];
  return {
    specs,
    open: (spec) => {
      specs.push(spec);
      return Promise.resolve({ description: String(spec), close: async () => {} } as ResultStore);
    },
  };
}

function actionStore(
  inputs: { store?: string; storeBranch?: string },
  open: OpenSpec = recorder().open,
  workspace = '/work/space',
) {
  return openInputStore(inputs, workspace, {
    stores: { open, tempDir: tmp() },
    runner: nodeProcessRunner,
    logger: memoryLogger(),
  });
}

describe('the store chooser', () => {
  it('finds a relative directory from the base directory, and passes URLs as given', async () => {
    const { specs, open } = recorder();
    await actionStore({ store: 'runs/store' }, open);
    await actionStore({ store: 'postgresql://u@h/db' }, open);
    await chooseStore({ spec: ' here ', baseDir: '/cwd', unset: 'default', write: false }, open);
    expect(specs).toEqual(['/work/space/runs/store', 'postgresql://u@h/db', '/cwd/here']);
  });

  it('opens the default store when nothing is given on the CLI, none in the Action', async () => {
    const { specs, open } = recorder();
    expect(await actionStore({}, open)).toBeUndefined();
    const chosen = await chooseStore({ spec: '  ', baseDir: '/cwd', unset: 'default', write: true }, open);
    expect(chosen.reader.description).toBe('undefined');
    expect(specs).toEqual([undefined]);
  });

  it('refuses a URL of another scheme by name rather than making a directory of it', async () => {
    const open = (spec: string | undefined, write: boolean) =>
      openStore(spec, { what: "input 'store'", home: tmp(), warn: () => {}, write });
    await expect(actionStore({ store: 's3://bucket/runs' }, open, tmp())).rejects.toThrow(
      "store 's3://bucket/runs' is not supported: expected a directory or a postgresql:// URL",
    );
  });

  it("refuses, in the Action's names, a store outside the data branch and a branch it cannot push to", async () => {
    await expect(actionStore({ store: '../up', storeBranch: 'pgperf-data' })).rejects.toThrow(
      "input 'store' is '../up', but with 'store-branch' it is the directory inside the branch: expected a relative path such as store",
    );
    await expect(actionStore({ store: path.join(tmp(), 's'), storeBranch: 'pgperf-data' })).rejects.toThrow(
      /^input 'store' is '\/.*', but with 'store-branch' it is the directory inside the branch/,
    );
    await expect(actionStore({ storeBranch: 'pgperf-data' })).rejects.toThrow(
      "input 'store-branch' (pgperf-data) pushes to the workflow's repository: pass 'github-token' with contents: write",
    );
  });

  it('refuses a store on a runner that cannot open one', async () => {
    await expect(
      openInputStore({ store: 'store' }, '/w', { runner: nodeProcessRunner, logger: memoryLogger() }),
    ).rejects.toThrow("inputs 'store'/'store-branch' are set but this runner cannot open a store");
  });
});
