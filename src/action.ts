/**
 * GitHub Action adapter: the only place that reads inputs and the runner's environment, and the only
 * user of @actions/core. Everything else is the pipeline in action/run-action.ts.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@actions/core';
import { buildArms } from './pipeline/build-stage.js';
import type { ActionContext } from './action/context.js';
import { parseInputs } from './action/inputs.js';
import { runAction } from './action/run-action.js';
import { defaultCacheDir } from './build/cache.js';
import { runCleanups } from './cluster/cleanup.js';
import { octokitApi } from './github/octokit-api.js';
import { UserError, errorMessage } from './util/errors.js';
import type { Logger } from './util/logger.js';
import { nodeProcessRunner } from './util/process.js';

const coreLogger: Logger = {
  info: (m) => core.info(m),
  warn: (m) => core.warning(m),
  error: (m) => core.error(m),
  debug: (m) => core.debug(m),
  group: (name, fn) => core.group(name, fn),
};

export async function run(): Promise<void> {
  const controller = new AbortController();
  // A cancelled workflow sends SIGINT (then SIGTERM): stop, keep what was measured, and exit 130/143.
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      void runCleanups().finally(() => process.exit(signal === 'SIGTERM' ? 143 : 130));
      return;
    }
    received = signal;
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const inputs = parseInputs((name) => core.getInput(name));
    const ctx = await readContext(process.env);
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
      build: (request, signal) =>
        buildArms(request, { runner: nodeProcessRunner, logger: coreLogger, signal }),
      cacheDir,
      actionDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
      signal: controller.signal,
    });
    if (outcome.failure) core.setFailed(outcome.failure);
    if (received && inputs.failOn !== 'never') process.exitCode = received === 'SIGTERM' ? 143 : 130;
  } catch (e) {
    if (!(e instanceof UserError)) core.debug(e instanceof Error && e.stack ? e.stack : String(e));
    core.setFailed(errorMessage(e));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runCleanups();
  }
}

/** The workflow run, from the variables the runner sets. */
async function readContext(env: NodeJS.ProcessEnv): Promise<ActionContext> {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo)
    throw new UserError('GITHUB_REPOSITORY is not set (owner/name): is this running in GitHub Actions?');
  let payload: Record<string, unknown> = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new UserError(`cannot read the event payload ${env.GITHUB_EVENT_PATH}: ${errorMessage(e)}`);
    }
  }
  const serverUrl = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    owner,
    repo,
    sha: env.GITHUB_SHA ?? '',
    serverUrl,
    runUrl: env.GITHUB_RUN_ID ? `${serverUrl}/${owner}/${repo}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
  };
}
