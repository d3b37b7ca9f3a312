/**
 * What a run with cold-start workloads says before its rounds (src/run/cold-start.ts): which workloads drop
 * the OS page cache, and that the drop is machine-wide; nothing for a run without them.
 */
import { describe, expect, it } from 'vitest';
import { coldStartNotice } from '../../src/run/cold-start.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';

const workload = (name: string, extra = '') =>
  parseWorkload(`name: ${name}\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n${extra}`, `${name}.yml`);

describe('the cold-start notice of a run', () => {
  it('names the cold workloads and says the page cache it drops is every process on the machine', () => {
    const notice = coldStartNotice([
      workload('warm'),
      workload('cold-a', 'coldStart: true\n'),
      workload('cold-b', 'coldStart: true\n'),
    ]);
    expect(notice).toBe(
      'cold start (cold-a, cold-b): every measured run restarts its server and drops the OS page cache, which is machine-wide: every process on this machine loses its cached files (docs/workloads.md#cold-starts)',
    );
  });

  it('is absent when no workload starts cold', () => {
    expect(coldStartNotice([workload('warm'), workload('off', 'coldStart: false\n')])).toBeUndefined();
  });
});
