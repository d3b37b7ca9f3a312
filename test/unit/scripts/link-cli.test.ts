/**
 * The quick start's link (scripts/link-cli.sh, #39 item 3): `pgperf` on the PATH is a link to a clone's
 * dist/cli.js; run from another clone it repoints the link and says so, with where it pointed before, and
 * never silently; a file that is no clone's link is left alone. Run for real with bash, into a temp bin dir.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readlink, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmpDir } from '../../helpers/tmp-dir.js';

const script = new URL('../../../scripts/link-cli.sh', import.meta.url).pathname;

describe('scripts/link-cli.sh', () => {
  const tmp = useTmpDir('pgperf-link-cli-', { perTest: true });

  /** A clone's dist/cli.js (the script only needs the file). */
  async function clone(name: string): Promise<string> {
    const cli = path.join(tmp(), name, 'dist', 'cli.js');
    await mkdir(path.dirname(cli), { recursive: true });
    await writeFile(cli, '');
    return cli;
  }

  function link(cli: string): { code: number | null; out: string } {
    const r = spawnSync('bash', [script], {
      env: { ...process.env, PGPERF_BIN_DIR: path.join(tmp(), 'bin'), PGPERF_CLI: cli },
      encoding: 'utf8',
    });
    return { code: r.status, out: r.stdout + r.stderr };
  }

  it("links, says so again, and repoints another clone's link saying where it pointed before", async () => {
    const [a, b] = [await clone('a'), await clone('b')];
    const bin = path.join(tmp(), 'bin', 'pgperf');
    expect(link(a)).toMatchObject({
      code: 0,
      out: expect.stringContaining(`setup: pgperf: linked ${bin} -> ${a}\n`),
    });
    expect(link(a).out).toContain(`setup: pgperf: ${bin} -> ${a} (linked before)\n`);
    const repointed = link(b);
    expect(repointed.code).toBe(0);
    expect(repointed.out).toContain(`setup: pgperf: ${bin} now points to ${b} (was ${a})\n`);
    expect(repointed.out).toContain(
      `setup: the clone at ${path.join(tmp(), 'a')} is no longer \`pgperf\`: run it as node ${a}, or run its scripts/link-cli.sh to point the link back`,
    );
    expect(await readlink(bin)).toBe(b);
  });

  it('says when the clone the link pointed to is gone', async () => {
    const [a, b] = [await clone('a'), await clone('b')];
    link(a);
    await rm(path.join(tmp(), 'a'), { recursive: true });
    const r = link(b);
    expect(r.out).toContain(`now points to ${b} (was ${a}, which no longer exists)\n`);
    expect(r.out).not.toContain('is no longer `pgperf`');
  });

  it('leaves alone a pgperf that is not a link to a clone', async () => {
    const a = await clone('a');
    await mkdir(path.join(tmp(), 'bin'));
    await writeFile(path.join(tmp(), 'bin', 'pgperf'), '#!/bin/sh\n');
    const r = link(a);
    expect(r.code).toBe(0);
    expect(r.out).toContain('exists and is not a link to a pgperf clone');
  });
});
