/**
 * A driver that measures nothing: every run reports the workload's `tps` scaled by the client count, and
 * the latency that throughput means (clients / tps).
 */
import type { Driver, DriverDeps } from '../../../../src/drivers/common/driver.js';
import type { FakeWorkload } from './workload.js';

export function fakeDriver(workload: FakeWorkload, deps: DriverDeps): Driver {
  return {
    client: async () => ({ tool: 'fake', binDir: deps.clientBinDir, version: 'fake 1.0' }),
    prepare: async () => {},
    beforeRun: async () => {},
    run: async (_target, spec) => {
      const at = new Date().toISOString();
      const tps = workload.tps * spec.clients;
      return {
        ok: true,
        metrics: { tps, latencyAvgMs: (1000 * spec.clients) / tps },
        counts: { transactions: Math.round(tps * spec.durationS) },
        progress: [],
        command: ['fake', `--clients=${spec.clients}`],
        exitCode: 0,
        startedAt: at,
        endedAt: at,
      };
    },
  };
}
