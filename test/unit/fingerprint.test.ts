import { describe, expect, it } from 'vitest';
import type { BuildRecord } from '../../src/postgres/builds/build-record.js';
import {
  canonicalJson,
  diffFingerprints,
  environmentFingerprint,
  workloadHash,
} from '../../src/machine/fingerprint.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { readFixture } from '../../testkit/store-fixture.js';
import { DEBIAN_12_X64, GCC_12_DEBIAN } from '../helpers/toolchain.js';

/** A real results document (see test/fixtures/results/README.md). */
const fixture = readFixture();

function variant(change: (r: RunResult) => void): RunResult {
  const copy = structuredClone(fixture);
  change(copy);
  return copy;
}

/** A build record as src/postgres/builds/build.ts writes it (typed, so a changed record shape fails here). */
function buildRecord(over: Partial<BuildRecord> = {}): BuildRecord {
  const record: BuildRecord = {
    repo: 'https://github.com/postgres/postgres.git',
    ref: 'master',
    sha: '4b4f3a1c9d2e8f7a6b5c4d3e2f1a0b9c8d7e6f5a',
    patches: [],
    key: 'k1',
    buildSystem: 'meson',
    options: ['--buildtype=release', '-Dcassert=false'],
    cc: 'ccache gcc',
    compiler: GCC_12_DEBIAN,
    platform: DEBIAN_12_X64,
    cflags: '-O2',
    serverVersion: 'postgres (PostgreSQL) 19devel',
    durationsS: {},
    builtAt: '2026-11-23T12:00:00.000Z',
    cacheHit: false,
    installPrefix: '/var/cache/pgperf/installs/k1',
    logFile: '/var/cache/pgperf/logs/k1.log',
    pgperfVersion: '0.1.0',
    ...over,
  };
  return record;
}

describe('environmentFingerprint', () => {
  it('hashes the comparable facts of a real results document', () => {
    const fp = environmentFingerprint(fixture);
    expect(fp.id).toMatch(/^[0-9a-f]{16}$/);
    expect(fp.facts).toEqual({
      cpuModel: 'AMD EPYC',
      cpuCount: '2',
      memoryGiB: '24',
      kernel: fixture.environment.kernel,
      os: 'Debian GNU/Linux 12 (bookworm)',
      arch: 'x64',
      settingsHash: fixture.environment.settingsHash,
      smt: 'notsupported',
      cpuidleDriver: 'none',
      'client.pgbench': 'pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)',
    });
    expect(environmentFingerprint(structuredClone(fixture))).toEqual(fp);
  });

  it('ignores the hostname, the load average and the node version', () => {
    const other = variant((r) => {
      r.environment.hostname = 'runner-7';
      r.environment.facts.loadavgAtStart = '9.99 9.99 9.99';
      r.environment.nodeVersion = 'v22.0.0';
      r.environment.memoryBytes += 100 * 1024 ** 2; // rounding to GiB absorbs small differences
    });
    expect(environmentFingerprint(other).id).toBe(environmentFingerprint(fixture).id);
  });

  it.each([
    ['kernel', (r: RunResult) => void (r.environment.kernel = '6.1.0-13-amd64')],
    ['cpuCount', (r: RunResult) => void (r.environment.cpuCount = 4)],
    ['settingsHash', (r: RunResult) => void (r.environment.settingsHash = '0000000000000000')],
    ['governor', (r: RunResult) => void (r.environment.facts.governor = 'powersave')],
    ['runnerLabel', (r: RunResult) => void (r.environment.facts.runnerLabel = 'bench-large')],
    ['client.pgbench', (r: RunResult) => void (r.clients[0]!.version = 'pgbench (PostgreSQL) 18.1')],
  ])('a different %s gives a different id, and the diff names it', (fact, change) => {
    const a = environmentFingerprint(fixture);
    const b = environmentFingerprint(variant(change));
    expect(b.id).not.toBe(a.id);
    expect(diffFingerprints(a, b).map((d) => d.fact)).toEqual([fact]);
  });

  it('takes compiler and build options from the arms that were built, as a set', () => {
    const same = variant((r) => {
      r.arms[0]!.build = buildRecord();
      r.arms[1]!.build = buildRecord({ sha: 'ffffffffffffffffffffffffffffffffffffffff', ref: 'pr-1' });
    });
    const fp = environmentFingerprint(same);
    expect(fp.facts.compiler).toBe('gcc (Debian 12.2.0-14+deb12u1) 12.2.0');
    expect(fp.facts.buildOptions).toBe('--buildtype=release -Dcassert=false');
    expect(fp.facts.buildSystem).toBe('meson');
    // The commits differ between runs of one machine; they are not part of the fingerprint.
    const otherCommits = variant((r) => {
      r.arms[0]!.build = buildRecord({ sha: '1111111111111111111111111111111111111111' });
      r.arms[1]!.build = buildRecord({ ref: 'pr-2' });
    });
    expect(environmentFingerprint(otherCommits).id).toBe(fp.id);

    const mixed = variant((r) => {
      r.arms[0]!.build = buildRecord();
      r.arms[1]!.build = buildRecord({ options: ['--buildtype=debug'] });
    });
    const diff = diffFingerprints(fp, environmentFingerprint(mixed));
    expect(diff).toEqual([
      {
        fact: 'buildOptions',
        a: '--buildtype=release -Dcassert=false',
        b: '--buildtype=debug | --buildtype=release -Dcassert=false',
      },
    ]);
  });

  it('does not depend on the order the facts were recorded in', () => {
    const reordered = variant((r) => {
      r.environment.facts = Object.fromEntries(Object.entries(r.environment.facts).reverse());
    });
    expect(environmentFingerprint(reordered).id).toBe(environmentFingerprint(fixture).id);
  });
});

describe('diffFingerprints', () => {
  it('lists facts present on one side only', () => {
    const a = { id: 'a', facts: { kernel: '6.1', governor: 'performance' } };
    const b = { id: 'b', facts: { kernel: '6.1', runnerLabel: 'x' } };
    expect(diffFingerprints(a, b)).toEqual([
      { fact: 'governor', a: 'performance', b: undefined },
      { fact: 'runnerLabel', a: undefined, b: 'x' },
    ]);
    expect(diffFingerprints(a, a)).toEqual([]);
  });
});

describe('workloadHash', () => {
  const smoke = fixture.workloads.smoke as Record<string, unknown>;

  it('ignores what does not change a measured run: rounds, threshold, retries, clients, name, description', () => {
    const h = workloadHash(smoke);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(
      workloadHash({
        ...smoke,
        rounds: 30,
        threshold: 5,
        retries: 0,
        clients: [1, 2, 4, 8],
        name: 'renamed',
        description: 'other words',
      }),
    ).toBe(h);
  });

  it.each([
    ['duration', 60],
    ['warmup', 10],
    ['scale', 100],
    ['settings', { shared_buffers: '4GB' }],
    ['builtin', 'select-only'],
  ])('changes with %s', (field, value) => {
    expect(workloadHash({ ...smoke, [field]: value })).not.toBe(workloadHash(smoke));
  });

  it('is canonical: key order does not matter', () => {
    const reversed = Object.fromEntries(Object.entries(smoke).reverse());
    expect(workloadHash(reversed)).toBe(workloadHash(smoke));
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });
});
