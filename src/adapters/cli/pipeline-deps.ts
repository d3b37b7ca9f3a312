/**
 * The pipeline's deps as the CLI provides them, once for every command: this process's runner, logger,
 * PATH and builder. (The Action's are action-deps.ts; the store is handed to the flow on its own.)
 */
import { buildArms } from '../../flows/compare/pipeline/build-stage.js';
import type { PipelineDeps } from '../../flows/compare/pipeline/pipeline.js';
import type { Logger } from '../../core/util/logger.js';
import { nodeProcessRunner } from '../../machine/os/process.js';

export function cliPipelineDeps(logger: Logger, signal?: AbortSignal): PipelineDeps {
  return {
    runner: nodeProcessRunner,
    logger,
    ...(signal ? { signal } : {}),
    searchPath: process.env.PATH ?? '',
    build: (request, buildSignal) =>
      buildArms(request, {
        runner: nodeProcessRunner,
        logger,
        ...((buildSignal ?? signal) ? { signal: buildSignal ?? signal } : {}),
      }),
  };
}
