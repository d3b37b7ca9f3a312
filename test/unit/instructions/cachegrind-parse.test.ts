import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCachegrind, sumProfiles } from '../../../src/postgres/instructions/cachegrind-file.js';
import {
  diffProfiles,
  perTransactionCosts,
  profileText,
} from '../../../src/postgres/instructions/profile-diff.js';
import { clientBackendPids } from '../../../src/postgres/instructions/backend-log.js';
import { hardwareCounts } from '../../../src/postgres/instructions/counter.js';
import { cachegrindWrapper } from '../../../src/postgres/instructions/cachegrind-run.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/cachegrind/${name}`, import.meta.url), 'utf8');
const short = parseCachegrind(fixture('pg15-select-only-200tx.cg'), 'short.cg');
const long = parseCachegrind(fixture('pg15-select-only-1200tx.cg'), 'long.cg');

describe('parseCachegrind on real cachegrind output (PostgreSQL 15 backends)', () => {
  it('reads the summary Ir and the command', () => {
    expect(short.totalIr).toBe(51_084_910);
    expect(long.totalIr).toBe(94_439_418);
    expect(long.command).toBe('/usr/lib/postgresql/15/bin/postgres -D /tmp/hinstr/data');
  });

  it('self costs of all functions add up to the summary', () => {
    for (const p of [short, long]) {
      const sum = [...p.functions.values()].reduce((s, f) => s + f.ir, 0);
      expect(sum).toBe(p.totalIr);
    }
  });

  it('finds the executor functions of a simple SELECT with non-zero cost', () => {
    const names = new Set([...long.functions.values()].map((f) => f.fn));
    for (const fn of ['ExecutorRun', 'PostgresMain', 'hash_search_with_hash_value']) {
      expect(names.has(fn), fn).toBe(true);
    }
  });

  it('per transaction: the difference of the two runs is about 43k instructions of a select-only transaction', () => {
    const perTx = (long.totalIr - short.totalIr) / (1200 - 200);
    expect(perTx).toBeGreaterThan(30_000);
    expect(perTx).toBeLessThan(60_000);
    const costs = perTransactionCosts({
      short: sumProfiles([short]),
      long: sumProfiles([long]),
      transactions: { short: 200, long: 1200 },
    });
    const total = [...costs.values()].reduce((s, f) => s + f.ir, 0);
    expect(total).toBeCloseTo(perTx, 6);
  });

  it('names the file and the problem for a file that is not cachegrind output or is incomplete', () => {
    expect(() => parseCachegrind('hello\n', 'x.cg')).toThrow('x.cg: not a cachegrind file with an Ir event');
    const cut = fixture('pg15-select-only-200tx.cg').replace(/\nsummary:.*\n?/, '\n');
    expect(() => parseCachegrind(cut, 'y.cg')).toThrow('y.cg: no "summary:" line');
  });

  it('reads the Ir column wherever the events line puts it', () => {
    const text = 'events: Dr Ir\nfl=a.c\nfn=f\n1 5 7\n2 1\nfn=g\n3 0 4\nsummary: 6 11\n';
    const p = parseCachegrind(text, 't');
    expect(p.totalIr).toBe(11);
    expect([...p.functions.values()].map((f) => [f.fn, f.ir])).toEqual([
      ['f', 7],
      ['g', 4],
    ]);
  });
});

describe('diffProfiles', () => {
  it('an arm against itself moves nothing; a function added to head is the largest mover', () => {
    const runs = {
      short: sumProfiles([short]),
      long: sumProfiles([long]),
      transactions: { short: 200, long: 1200 },
    };
    expect(diffProfiles(runs, runs).every((r) => r.deltaIrPerTx === 0)).toBe(true);
    const headLong = sumProfiles([long]);
    headLong.set('extra\u0000x.c', { fn: 'pgperf_extra_work', file: 'x.c', ir: 5_000_000 });
    const rows = diffProfiles(runs, { ...runs, long: headLong });
    expect(rows[0]).toMatchObject({
      fn: 'pgperf_extra_work',
      baseIrPerTx: 0,
      headIrPerTx: 5000,
      deltaIrPerTx: 5000,
    });
    expect(profileText(rows.slice(0, 1), 'h')).toContain('5000.0\t0.0\t5000.0\tpgperf_extra_work\tx.c');
  });
});

describe('clientBackendPids', () => {
  it("finds the pgbench backends in a server log with log_connections (PG 15's wording)", () => {
    const log = [
      '2026-11-25 13:17:12.299 UTC [21631] LOG:  connection received: host=[local]',
      '2026-11-25 13:17:12.300 UTC [21631] LOG:  connection authorized: user=postgres database=postgres application_name=pgbench',
      '2026-11-25 13:17:13.100 UTC [21640] LOG:  connection authorized: user=postgres database=postgres application_name=psql',
      '2026-11-25 13:17:14.526 UTC [21665] LOG:  connection authorized: user=postgres database=postgres application_name=pgbench',
    ].join('\n');
    expect(clientBackendPids(log, 'pgbench')).toEqual([21631, 21665]);
    expect(clientBackendPids(log, 'psql')).toEqual([21640]);
  });
});

describe('hardwareCounts', () => {
  it('reads perf stat -x , output: "<not supported>" on a VM without a PMU, a count where there is one', () => {
    // Captured on this VM: perf stat -x , -e instructions:u true
    expect(hardwareCounts(0, '<not supported>,,instructions:u,0,100.00,,\n')).toBe(false);
    expect(hardwareCounts(0, '412345,,instructions:u,512301,100.00,,\n')).toBe(true);
    expect(hardwareCounts(255, '')).toBe(false);
  });
});

describe('cachegrindWrapper', () => {
  it('counts instructions only, one file per process, its temporary files in the output directory', () => {
    expect(cachegrindWrapper('/d')).toEqual([
      'env',
      'TMPDIR=/d',
      'valgrind',
      '--tool=cachegrind',
      '--cache-sim=no',
      '--quiet',
      '--cachegrind-out-file=/d/cg.%p',
    ]);
  });
});
