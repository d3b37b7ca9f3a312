/** The reports' line naming the client binaries that drove every arm (src/core/report/evidence/client-line.ts). */
import { describe, expect, it } from 'vitest';
import { clientLines, clientText } from '../../../src/core/report/evidence/client-line.js';

describe('the client line of the reports', () => {
  const pgbench = {
    tool: 'pgbench',
    binDir: '/usr/lib/postgresql/18/bin',
    version: 'pgbench (PostgreSQL) 18.6',
  };
  const sysbench = { tool: 'sysbench', binDir: '/usr/bin', version: 'sysbench 1.0.20' };

  it('names the version and the bin dir of the one client that drove every arm', () => {
    expect(clientText(pgbench)).toBe('pgbench (PostgreSQL) 18.6 from /usr/lib/postgresql/18/bin');
    expect(clientText({ ...pgbench, version: '18.6' })).toBe('pgbench 18.6 from /usr/lib/postgresql/18/bin');
    expect(clientLines([pgbench])).toEqual([
      'client: pgbench (PostgreSQL) 18.6 from /usr/lib/postgresql/18/bin drove every arm',
    ]);
  });

  it('is one line for two tools, and none when the results record no client', () => {
    expect(clientLines([pgbench, sysbench])).toEqual([
      'clients: pgbench (PostgreSQL) 18.6 from /usr/lib/postgresql/18/bin; sysbench 1.0.20 from /usr/bin drove every arm',
    ]);
    expect(clientLines([])).toEqual([]);
  });
});
