/** The run-as user of the tests' PostgreSQL programs when the tests run as root (undefined otherwise). */
import type { InstallDeps } from '../../src/postgres/cluster/install-runner.js';
import { resolveRunAs, type RunAsUser } from '../../src/postgres/cluster/run-as.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner, type ProcessRunner } from '../../src/machine/os/process.js';

let resolved: Promise<RunAsUser | undefined> | undefined;

/** pgperf's default run-as user (created when missing), resolved once per test file. */
export function testRunAs(): Promise<RunAsUser | undefined> {
  return (resolved ??= resolveRunAs(undefined, { runner: nodeProcessRunner, logger: memoryLogger() }));
}

/** What an install's programs need (install-runner.ts): `runner` (default the real one) and the run-as user. */
export async function installDeps(runner: ProcessRunner = nodeProcessRunner): Promise<InstallDeps> {
  return { runner, runAs: await testRunAs() };
}
