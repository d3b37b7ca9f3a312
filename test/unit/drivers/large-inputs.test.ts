/**
 * Validation in linear time, refusals that quote the offending item (issue #40 item 6): one matrix list of
 * 50,000 values took 197 s to refuse, and the refusal quoted the whole matrix. Every case here runs the real
 * loader (or the real flag parser) on an input as large as a workload file or a command line may be, and
 * bounds the CPU time it takes (not the wall time: the test runners are shared) and the size of what it
 * says. Each case took seconds to minutes before (noted), so each can fail.
 */
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/adapters/cli/commands/run.js';
import type { Option } from 'commander';
import { MAX_LISTED_PROBLEMS, parseWorkloads } from '../../../src/drivers/load-workload.js';

const HEAD = 'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n';

/** What `attempt` throws (or '' when it returns) and the CPU milliseconds it took. */
function timed(attempt: () => unknown): { message: string; cpuMs: number } {
  const before = process.cpuUsage();
  let message = '';
  try {
    attempt();
  } catch (e) {
    message = (e as Error).message;
  }
  const used = process.cpuUsage(before);
  return { message, cpuMs: (used.user + used.system) / 1000 };
}

const list = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i));

describe('a workload file as large as one may be is checked in linear time', () => {
  it('a matrix list of 50,000 values: refused in well under a second, without quoting the list', () => {
    // As the probe: 50,000 numbers (each String()ed for every one before it: 197 s).
    const text = `${HEAD}matrix:\n  work_mem: [${list(50_000, (i) => String(i)).join(', ')}]\n`;
    expect(text.length).toBeGreaterThan(289_000);
    const { message, cpuMs } = timed(() => parseWorkloads(text, 'w.yml'));
    expect(cpuMs).toBeLessThan(1000);
    expect(message).toContain(
      'w.yml:6:3: matrix: expected from 1 to 64 combinations of values, each a workload of its own (sweep fewer values, or split the matrix over workload files); these lists make 50000 = 50000, got {"work_mem":[0,1,2,',
    );
    expect(message).toMatch(/… \(a mapping of 1 key\)$/);
    expect(message.length).toBeLessThan(500);
    expect(message).not.toContain('49999');
  });

  it('a value twice in a list is named with the index of its first', () => {
    const { message } = timed(() =>
      parseWorkloads(`${HEAD}matrix:\n  work_mem: [1MB, 2MB, 3MB, 2MB]\n`, 'w.yml'),
    );
    expect(message).toBe(
      'w.yml:6:29: matrix.work_mem[3]: expected each value once in matrix.work_mem (it is also matrix.work_mem[1]), got "2MB"',
    );
  });

  it('a matrix of 50,000 settings of one value each: expanded without copying each combination (30 s before)', () => {
    const text = `${HEAD}matrix:\n${list(50_000, (i) => `  s${i}: [a]`).join('\n')}\n`;
    const { message, cpuMs } = timed(() => parseWorkloads(text, 'w.yml'));
    expect(message).toBe('');
    expect(cpuMs).toBeLessThan(5000);
  });

  it('50,000 keys with one repeated: the key, its line and its first line (the YAML package took a minute)', () => {
    const keys = list(50_000, (i) => `  s${i}: 1`);
    keys.push('  s7: 2');
    const { message, cpuMs } = timed(() => parseWorkloads(`${HEAD}settings:\n${keys.join('\n')}\n`, 'w.yml'));
    expect(cpuMs).toBeLessThan(5000);
    expect(message).toBe(
      'w.yml:50006:3: invalid YAML: the key "s7" is given twice in one mapping (keys must be unique; the first is on line 13)',
    );
  });

  it('keys compare as the workload reads them: 1 and "1" are one key', () => {
    const { message } = timed(() => parseWorkloads(`${HEAD}settings:\n  1: a\n  "1": b\n`, 'w.yml'));
    expect(message).toMatch(/^w\.yml:7:3: invalid YAML: the key "1" is given twice in one mapping/);
  });

  it(`20,000 bad values: the first ${MAX_LISTED_PROBLEMS} problems listed, the rest counted`, () => {
    const text = `${HEAD}settings:\n${list(20_000, (i) => `  Bad${i}: 1`).join('\n')}\n`;
    const { message, cpuMs } = timed(() => parseWorkloads(text, 'w.yml'));
    expect(cpuMs).toBeLessThan(5000);
    const lines = message.split('\n');
    expect(lines[0]).toBe(`w.yml: 20000 problems (the first ${MAX_LISTED_PROBLEMS}):`);
    expect(lines[1]).toMatch(/^ {2}w\.yml:6:9: settings\.Bad0: "Bad0" is not a setting name/);
    expect(lines).toHaveLength(MAX_LISTED_PROBLEMS + 2);
    expect(lines.at(-1)).toBe(`  ... and ${20_000 - MAX_LISTED_PROBLEMS} more`);
  });

  it('thousands of unknown keys: five named, the rest counted', () => {
    const text = `${HEAD}${list(5000, (i) => `k${i}: 1`).join('\n')}\n`;
    const { message } = timed(() => parseWorkloads(text, 'w.yml'));
    expect(message).toMatch(
      /^w\.yml:5:1: unknown key "k0", "k1", "k2", "k3", "k4" and 4995 more \(expected one of: /,
    );
    expect(message.length).toBeLessThan(1000);
  });

  it('a long value is cut and its size said', () => {
    const { message } = timed(() =>
      parseWorkloads(`${HEAD}description: [${'x'.repeat(100_000)}]\n`, 'w.yml'),
    );
    expect(message).toMatch(
      /^w\.yml:5:14: description: expected string, got \["x{90,}… \(a list of 1 value\)$/,
    );
  });
});

describe('a command line as large as one may be', () => {
  const clients = (runCommand().options as Option[]).find((o) => o.long === '--clients')!;
  const parse = (v: string) =>
    (clients as Option & { parseArg: (v: string, prev: unknown) => unknown }).parseArg(v, undefined);

  it('--clients with every count and one repeated: the count named, the value cut', () => {
    const value = [...list(10_000, (i) => String(i + 1)), '1'].join(',');
    const { message, cpuMs } = timed(() => parse(value));
    expect(cpuMs).toBeLessThan(1000);
    expect(message).toMatch(
      /^--clients must give each client count once, got '1,2,3,.*… \(48895 characters\)' \(1 twice\)$/,
    );
    expect(message.length).toBeLessThan(300);
  });

  it('--rounds given a megabyte: the value cut', () => {
    const rounds = (runCommand().options as Option[]).find((o) => o.long === '--rounds')!;
    const { message } = timed(() =>
      (rounds as Option & { parseArg: (v: string, prev: unknown) => unknown }).parseArg(
        'x'.repeat(1 << 20),
        undefined,
      ),
    );
    expect(message).toBe(
      `--rounds must be a positive integer, got '${'x'.repeat(100)}… (1048576 characters)'`,
    );
  });
});
