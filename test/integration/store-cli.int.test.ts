/**
 * `pgperf store` through the built CLI (dist/cli.js; `node scripts/build.mjs` first), as a user runs it:
 * a directory store chosen by --store or PGPERF_STORE, and a PostgreSQL store started here.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/postgres/cluster/cluster.js';
import { readResults } from '../../src/store/read-results.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import type { StoredRun } from '../../src/store/store.js';
import { startTestPgServer, type TestPgServer } from '../../testkit/pg-server.js';
import { FIXTURE_FILE, fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';
import { runCli, type Ran } from '../helpers/cli.js';

const PASSWORD = 'cli-s3cret/pw';
let tmp: string;
let server: TestPgServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-store-cli-'));
  await chmod(tmp, 0o755);
  server = await startTestPgServer('store-cli');
  await server.admin(`CREATE ROLE cli_app LOGIN PASSWORD '${PASSWORD}'`);
  await server.admin('CREATE DATABASE cli_store OWNER cli_app');
});
afterAll(async () => {
  await server?.stop();
  await rm(tmp, { recursive: true, force: true });
});

function pgperf(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const { PGPERF_STORE: _ignored, ...inherited } = process.env;
  return runCli(args, { cwd: tmp, env: { ...inherited, HOME: tmp, XDG_DATA_HOME: '', ...env } });
}

describe('pgperf store (dist/cli.js)', () => {
  const fixture = readFixture();

  it('import, list, show, export with a directory store; importing again replaces', async () => {
    const store = path.join(tmp, 'dir-store');
    const other = path.join(tmp, 'second.json');
    await writeFile(
      other,
      JSON.stringify(
        fixtureVariant(fixture, {
          startedAt: minutesAfter(0),
          onlyWorkload: 'smoke',
          base: { ref: 'master', sha: 'a'.repeat(40) },
          head: { ref: 'pr-9', sha: 'b'.repeat(40) },
        }),
      ),
    );
    const imported = await pgperf(['store', 'import', FIXTURE_FILE, other, '--store', store]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const lines = imported.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^imported ${FIXTURE_FILE} as 20261123T132303Z-[0-9a-f]{8}$`));
    const id = lines[0]!.split(' as ')[1]!;
    const again = await pgperf(['store', 'import', FIXTURE_FILE, '--store', store, '--json']);
    expect((JSON.parse(again.stdout) as StoredRun[]).map((r) => r.id)).toEqual([id]);

    // PGPERF_STORE picks the store when --store is not given.
    const listed = await pgperf(['store', 'list'], { PGPERF_STORE: store });
    expect(listed.code).toBe(0);
    const table = listed.stdout.trim().split('\n');
    expect(table[0]).toMatch(/^ID +STARTED \(UTC\) +STATUS +COMMITS +WORKLOADS +CELLS +FINGERPRINT$/);
    expect(table).toHaveLength(3);
    expect(table[1]).toMatch(
      new RegExp(`^${id} +2026-11-23 13:23 +complete +base, head +smoke, select-only +9 +[0-9a-f]{8}$`),
    );
    expect(table[2]).toMatch(
      /2026-01-01 00:00 +complete +base master@aaaaaaaaaa, head pr-9@bbbbbbbbbb +smoke +2 /,
    );

    const json = JSON.parse(
      (await pgperf(['store', 'list', '--store', store, '--json'])).stdout,
    ) as StoredRun[];
    expect(json.map((r) => r.id)[0]).toBe(id);
    const filtered = await pgperf(['store', 'list', '--store', store, '--commit', 'pr-9', '--json']);
    expect((JSON.parse(filtered.stdout) as StoredRun[]).map((r) => r.workloads)).toEqual([['smoke']]);
    expect((await pgperf(['store', 'list', '--store', store, '--workload', 'nope'])).stdout).toBe(
      'no stored runs match\n',
    );
    const fp = json[0]!.fingerprint;
    const byFp = await pgperf([
      'store',
      'list',
      '--store',
      store,
      '--fingerprint',
      fp.slice(0, 5),
      '--limit',
      '1',
    ]);
    expect(byFp.stdout.trim().split('\n')).toHaveLength(2);

    const shown = await pgperf(['store', 'show', id, '--store', store]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`run ${id}: complete`);
    expect(shown.stdout).toContain('select-only at 1, 2, 4, 8, 16, 32, 64 clients');
    expect(shown.stdout).toContain(`fingerprint ${fp}:`);
    expect(shown.stdout).toContain('    cpuModel: AMD EPYC');

    const out = path.join(tmp, 'exported', 'results.json');
    const exported = await pgperf(['store', 'export', id, '--out', out, '--store', store]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toBe(`exported run ${id} to ${out}\n`);
    const doc = await readResults(out);
    expect(doc).toEqual({ ...fixture, runId: id, fingerprint: expect.objectContaining({ id: fp }) });
    const shownJson = JSON.parse(
      (await pgperf(['store', 'show', id, '--json', '--store', store])).stdout,
    ) as RunResult;
    expect(shownJson).toEqual(doc);
  });

  it('the default store is ~/.local/share/pgperf/store', async () => {
    const ran = await pgperf(['store', 'import', FIXTURE_FILE]);
    expect(ran.code).toBe(0);
    const listed = await pgperf([
      'store',
      'list',
      '--store',
      path.join(tmp, '.local/share/pgperf/store'),
      '--json',
    ]);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
  });

  it('bad input: clear errors, exit 2, nothing stored', async () => {
    const store = path.join(tmp, 'bad-store');
    const broken = path.join(tmp, 'broken.json');
    await writeFile(broken, (await readFile(FIXTURE_FILE, 'utf8')).slice(0, 300));
    const ran = await pgperf(['store', 'import', FIXTURE_FILE, broken, '--store', store]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(new RegExp(`^pgperf: ${broken} is not valid JSON`));
    expect(JSON.parse((await pgperf(['store', 'list', '--store', store, '--json'])).stdout)).toEqual([]);

    const unknown = await pgperf(['store', 'show', '20990101T000000Z-00000000', '--store', store]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("pgperf: no run '20990101T000000Z-00000000' in directory store");

    const since = await pgperf(['store', 'list', '--since', 'last week', '--store', store]);
    expect(since.code).toBe(2);
    expect(since.stderr).toBe(
      "pgperf: --since must be an ISO date or date-time such as 2026-11-23 or 2026-11-23T14:00:00Z, got 'last week'\n",
    );
  });

  it('a PostgreSQL store from PGPERF_STORE; an unreachable one is named with the password masked', async () => {
    const url = `postgresql://cli_app:${encodeURIComponent(PASSWORD)}@127.0.0.1:${server.port}/cli_store`;
    const imported = await pgperf(['store', 'import', FIXTURE_FILE], { PGPERF_STORE: url });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(
      `PostgreSQL store postgresql://cli_app:***@127.0.0.1:${server.port}/cli_store: applied schema migration 1`,
    );
    const id = imported.stdout.trim().split(' as ')[1]!;
    const shown = await pgperf(['store', 'show', id, '--json'], { PGPERF_STORE: url });
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as RunResult).samples).toHaveLength(54);

    const deadPort = await freePort();
    const dead = url.replace(`:${server.port}/`, `:${deadPort}/`);
    const ran = await pgperf(['store', 'list'], { PGPERF_STORE: dead });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      `pgperf: cannot reach the results store postgresql://cli_app:***@127.0.0.1:${deadPort}/cli_store`,
    );
    expect(ran.stderr).not.toContain(PASSWORD);
    expect(ran.stderr).not.toContain(encodeURIComponent(PASSWORD));
  });
});
