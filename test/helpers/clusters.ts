/** For tests that start their own PgCluster: a temporary parent directory and the run-as user. */
import { beforeAll } from 'vitest';
import { PgCluster, type ClusterSpec } from '../../src/postgres/cluster/cluster.js';
import type { RunAsUser } from '../../src/postgres/cluster/run-as.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { testRunAs } from './run-as.js';
import { useTmpDir } from './tmp-dir.js';

export interface TestClusters {
  /** The parent directory of the clusters. */
  dir: () => string;
  /** The unprivileged user PostgreSQL runs as when the tests run as root (undefined otherwise). */
  runAs: () => RunAsUser | undefined;
  deps: { runner: typeof nodeProcessRunner; logger: ReturnType<typeof memoryLogger> };
  /** An initialised, stopped cluster of `binDir` under dir(); `spec` adds to or overrides the defaults. */
  create: (
    label: string,
    binDir: string,
    conf: ClusterSpec['conf'],
    spec?: Partial<ClusterSpec>,
  ) => Promise<PgCluster>;
}

/** Registers the hooks that make the directory (named `prefix`…) and resolve the run-as user once. */
export function useTestClusters(prefix: string): TestClusters {
  const dir = useTmpDir(prefix);
  const deps = { runner: nodeProcessRunner, logger: memoryLogger() };
  let runAs: RunAsUser | undefined;
  beforeAll(async () => {
    runAs = await testRunAs();
  });
  return {
    dir,
    runAs: () => runAs,
    deps,
    create: (label, binDir, conf, spec = {}) =>
      PgCluster.create({ label, binDir, parentDir: dir(), conf, runAs, ...spec }, deps),
  };
}
