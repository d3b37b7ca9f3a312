/**
 * `pgperf compare --format mail` through the real CLI: src/cli.ts run by tsx in a child process (no build
 * needed; test/helpers/cli.ts), on the captured results file (test/fixtures/results/README.md) alone and as
 * two runs measured apart. No server is started.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../../helpers/cli.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/results/pgperf-15-smoke-select-only.json');
const pgperf = (args: string[]) => runCli(args, { source: true, killAfterMs: 60_000 });

describe('pgperf compare --format mail', () => {
  it('prints the plain-text reply: verdict first, 72 columns, ASCII, the exit code the gate decides', async () => {
    const ran = await pgperf(['compare', FIXTURE, '--format', 'mail']);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0); // pending under fail-on regression
    const lines = ran.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PENDING: Inconclusive: 8 of 8 cells undecided: /);
    expect(lines.filter((l) => l.length > 72 || !/^[\x20-\x7e]*$/.test(l))).toEqual([]);
    expect(lines).toContain('Deciding cells (8 of 8, the 6 most adverse shown):');
    expect(lines).toContain("cat > reproduce-select-only.yml <<'PGPERF_WORKLOAD'");

    // The same decision as every other format: fail-on inconclusive fails it, exit 1.
    const strict = await pgperf(['report', FIXTURE, '--format', 'mail', '--fail-on', 'inconclusive']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^FAILED: 8 undecided cells \(fail-on inconclusive\): /);
  });

  it('two runs measured apart: unpaired, said on stderr, the intervals named as such', async () => {
    const ran = await pgperf(['compare', FIXTURE, FIXTURE, '--format', 'mail']);
    expect(ran.stderr).toMatch(/two runs measured apart, not interleaved/);
    expect(ran.stdout.replace(/\s+/g, ' ')).toMatch(
      /CI of the unpaired Hodges-Lehmann shift; Mann-Whitney rank-sum test over 3 base and 3 head runs/,
    );
    expect(ran.stdout.split('\n').every((l) => l.length <= 72)).toBe(true);
  });

  it('is listed in --help, and a format it does not know is refused naming it', async () => {
    const help = await pgperf(['compare', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'mail (plain text for a mailing-list reply, 72 columns)',
    );
    const bad = await pgperf(['compare', FIXTURE, '--format', 'email']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be one of text, markdown, json, mail, got 'email'/);
  });
});
