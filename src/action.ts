/**
 * GitHub Action adapter: the only place that reads inputs and the runner's environment, and the only
 * user of @actions/core. Everything else is adapters/action/modes/run-action.ts, which chooses the mode; each
 * mode calls a flow of src/flows/.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@actions/core';
import { readContext } from './adapters/action/context.js';
import { parseInputs } from './adapters/action/inputs.js';
import { buildArms } from './flows/compare/pipeline/build-stage.js';
import { runAction } from './adapters/action/modes/run-action.js';
import { defaultCacheDir } from './postgres/builds/cache.js';
import { runCleanups } from './machine/os/cleanup.js';
import { secretsToMask } from './machine/os/child-env.js';
import { UserError, errorMessage } from './core/util/errors.js';
import type { Logger } from './core/util/logger.js';
import { nodeProcessRunner } from './machine/os/process.js';
import { isPostgresUrl, openStore } from './store/open/open-store.js';
import { credentialSecrets, type RemoteCredentials } from './store/branch/data-branch.js';
import type { ActionContext } from './adapters/action/context.js';
import { endOutputOnClosedPipe } from './machine/os/closed-pipe.js';
import { installSignalHandlers, signalExitCode, type StopSignal } from './machine/os/signals.js';

const coreLogger: Logger = {
  info: (m) => core.info(m),
  warn: (m) => core.warning(m),
  error: (m) => core.error(m),
  debug: (m) => core.debug(m),
  group: (name, fn) => core.group(name, fn),
};

/** Masks secret values (the token, a store URL and its password) in everything the runner logs. */
export function maskSecrets(values: ReadonlyArray<string | undefined>): void {
  for (const secret of secretsToMask(values)) core.setSecret(secret);
}

export async function run(): Promise<void> {
  // A log reader that is gone ends the output, not the run: each failed write would otherwise be an
  // uncaught error whose report fails to write again.
  endOutputOnClosedPipe();
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  // First signal: stop the run and publish what was measured; second: clean up and exit at once.
  const disposeSignals = installSignalHandlers({
    logger: coreLogger,
    onFirst: (signal) => {
      stoppedBy = signal;
      controller.abort(new Error(`cancelled by ${signal}`));
    },
  });
  try {
    const inputs = parseInputs((name) => core.getInput(name));
    // Before anything can print them (validation messages never quote the token).
    maskSecrets([inputs.githubToken, inputs.store && isPostgresUrl(inputs.store) ? inputs.store : undefined]);
    const ctx = await readContext(process.env);
    // Loaded only now: @actions/github parses GITHUB_EVENT_PATH when it is loaded, and a payload that is
    // not JSON would throw a bare SyntaxError there; readContext above refuses it with a clear error first.
    const { octokitApi } = await import('./github/octokit-api.js');
    const api = inputs.githubToken
      ? octokitApi({
          token: inputs.githubToken,
          baseUrl: process.env.GITHUB_API_URL ?? 'https://api.github.com',
          owner: ctx.owner,
          repo: ctx.repo,
        })
      : undefined;
    const cacheDir = inputs.cacheDir
      ? path.resolve(ctx.workspace, inputs.cacheDir)
      : defaultCacheDir(process.env, process.getuid?.(), os.homedir());
    const outcome = await runAction(inputs, ctx, {
      logger: coreLogger,
      runner: nodeProcessRunner,
      io: {
        setOutput: (name, value) => core.setOutput(name, value),
        writeSummary: async (markdown) => {
          if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(markdown).write();
        },
      },
      api,
      // As root, the builds run the tree's code as the run-as user (the one PostgreSQL runs as).
      build: (request, signal) =>
        buildArms(request, {
          runner: nodeProcessRunner,
          logger: coreLogger,
          signal,
          ...(inputs.runAs ? { runAs: inputs.runAs } : {}),
        }),
      cacheDir,
      stores: {
        open: (spec, write) =>
          openStore(spec, {
            what: "input 'store'",
            home: os.homedir(),
            xdgDataHome: process.env.XDG_DATA_HOME,
            warn: (m) => coreLogger.warn(m),
            info: (m) => coreLogger.info(m),
            write,
          }),
        tempDir: process.env.RUNNER_TEMP || os.tmpdir(),
        ...(inputs.storeBranch && inputs.githubToken ? dataBranchRemote(ctx, inputs.githubToken) : {}),
      },
      actionDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
      signal: controller.signal,
      searchPath: process.env.PATH ?? '',
    });
    if (outcome.failure) core.setFailed(outcome.failure);
  } catch (e) {
    if (!(e instanceof UserError)) core.debug(e instanceof Error && e.stack ? e.stack : String(e));
    core.setFailed(errorMessage(e));
  } finally {
    // Cleanups first, with the handlers still installed: a signal now must not kill us half-way.
    await runCleanups();
    disposeSignals();
    if (stoppedBy) {
      if (process.exitCode === undefined || process.exitCode === 0)
        core.setFailed(`cancelled by ${stoppedBy}`);
      process.exitCode = signalExitCode(stoppedBy);
    }
  }
}

/**
 * The workflow's repository as a git remote, and the token as its credentials: the URL carries no secret
 * (git writes it to the work tree's .git/config); git gets the token per command through its environment
 * only (store/branch/data-branch.ts). The header value that encodes the token is masked like the token itself.
 */
function dataBranchRemote(
  ctx: ActionContext,
  token: string,
): { dataBranchRemote: string; dataBranchCredentials: RemoteCredentials } {
  const server = new URL(ctx.serverUrl);
  const credentials = { username: 'x-access-token', password: token };
  maskSecrets(credentialSecrets(credentials));
  return {
    dataBranchRemote: `${server.protocol}//${server.host}/${ctx.owner}/${ctx.repo}.git`,
    dataBranchCredentials: credentials,
  };
}
