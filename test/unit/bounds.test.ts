/**
 * One bound per size, the same wherever the size enters (src/core/bounds.ts): a CLI flag, an Action input,
 * a workload file field and a `/pgperf` comment accept the largest value of the range and refuse the next,
 * each through its real parser. The bad-input suites hold the hostile values; this file holds the edges.
 */
import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { bisectCommand } from '../../src/adapters/cli/commands/bisect.js';
import { runCommand } from '../../src/adapters/cli/commands/run.js';
import {
  BOUNDS,
  CLIENTS,
  DURATION_S,
  ROUNDS,
  SCALE,
  WORKLOAD_NAME_LENGTH,
  rangeText,
  withinBound,
  type Bound,
} from '../../src/core/bounds.js';
import { parsePgperfCommand } from '../../src/core/pgperf-command.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { parseActionInputs } from '../helpers/action-inputs.js';

/** The value `flag` of `command` parses `text` to (commander's own argument parser of that option). */
function flagValue(command: Command, flag: string, text: string): unknown {
  const option = (command.options as Option[]).find((o) => o.long === flag)!;
  const parse = (option as Option & { parseArg: (v: string, prev: unknown) => unknown }).parseArg;
  return parse(text, option.defaultValue);
}

const workload = (extra: string) =>
  parseWorkload(`name: w\ntool: pgbench\nbuiltin: select-only\n${extra}`, 'w.yml');

const command = (body: string) => parsePgperfCommand(body)!;

describe('the largest value is accepted and the next refused, by every source of the size', () => {
  it('rounds', () => {
    const { max } = ROUNDS;
    expect(flagValue(runCommand(), '--rounds', `${max}`)).toBe(max);
    expect(() => flagValue(runCommand(), '--rounds', `${max + 1}`)).toThrow(
      `--rounds must be a whole number from 1 to ${max}, got '${max + 1}'`,
    );
    expect(flagValue(runCommand(), '--max-rounds', `${max}`)).toBe(max);
    expect(() => flagValue(runCommand(), '--max-rounds', `${max + 1}`)).toThrow(/from 1 to 1000/);
    expect(parseActionInputs({ rounds: `${max}` }).rounds).toBe(max);
    expect(() => parseActionInputs({ rounds: `${max + 1}` })).toThrow(
      `input 'rounds' must be a whole number from 1 to ${max}, got '${max + 1}'`,
    );
    expect(command(`/pgperf run rounds=${max}`)).toMatchObject({ ok: true, command: { rounds: max } });
    expect(command(`/pgperf run rounds=${max + 1}`)).toMatchObject({
      ok: false,
      problem: `rounds=: '${max + 1}' is out of range: a whole number from 1 to ${max}`,
    });
    expect(workload(`clients: [1]\nrounds: ${max}\n`).rounds).toBe(max);
    expect(() => workload(`clients: [1]\nrounds: ${max + 1}\n`)).toThrow(
      `w.yml:5:9: rounds: expected a whole number from 1 to ${max}, got ${max + 1}`,
    );
  });

  it('clients', () => {
    const { max } = CLIENTS;
    expect(flagValue(bisectCommand(), '--clients', `${max}`)).toBe(max);
    expect(() => flagValue(bisectCommand(), '--clients', `${max + 1}`)).toThrow(
      `--clients must be a whole number from 1 to ${max}, got '${max + 1}'`,
    );
    expect(flagValue(runCommand(), '--clients', `1,${max}`)).toEqual([1, max]);
    expect(() => flagValue(runCommand(), '--clients', `1,${max + 1}`)).toThrow(
      `--clients must be client counts separated by commas (e.g. 1,4,64), each a whole number from 1 to ${max}; got '1,${max + 1}' (bad: '${max + 1}')`,
    );
    expect(parseActionInputs({ 'client-counts': `1,${max}` }).clientCounts).toEqual([1, max]);
    expect(() => parseActionInputs({ 'client-counts': `1,${max + 1}` })).toThrow(
      `input 'client-counts': each client count must be a whole number from 1 to ${max}, got '${max + 1}'`,
    );
    expect(command(`/pgperf rerun w@${max}`)).toMatchObject({ ok: true, command: { clients: max } });
    expect(command(`/pgperf run clients=1,${max + 1}`)).toMatchObject({
      ok: false,
      problem: `clients=: '${max + 1}' is out of range: a whole number from 1 to ${max}`,
    });
    expect(workload(`clients: [1, ${max}]\n`).clients).toEqual([1, max]);
    expect(() => workload(`clients: [${max + 1}]\n`)).toThrow(
      `w.yml:4:11: clients[0]: expected a whole number from 1 to ${max}, got ${max + 1}`,
    );
  });

  it('duration', () => {
    const { max } = DURATION_S;
    expect(flagValue(runCommand(), '--duration', `${max}`)).toBe(max);
    expect(() => flagValue(runCommand(), '--duration', `${max + 1}`)).toThrow(
      `--duration must be a whole number from 1 to ${max}, got '${max + 1}'`,
    );
    expect(parseActionInputs({ duration: `${max}` }).duration).toBe(max);
    expect(() => parseActionInputs({ duration: `${max + 1}` })).toThrow(/from 1 to 86400/);
    expect(workload(`clients: [1]\nduration: ${max}\n`).duration).toBe(max);
    expect(() => workload(`clients: [1]\nduration: ${max + 1}\n`)).toThrow(
      /duration: expected a whole number/,
    );
  });

  it('workload names (the name rule of every workload file)', () => {
    const { max } = WORKLOAD_NAME_LENGTH;
    const named = (name: string) =>
      parseWorkload(`name: ${name}\ntool: pgbench\nbuiltin: select-only\nclients: [1]\n`, 'w.yml');
    expect(named('n'.repeat(max)).name).toBe('n'.repeat(max));
    expect(() => named('n'.repeat(max + 1))).toThrow(
      `w.yml:1:7: name: expected at most ${max} characters (the name becomes part of file names), got ${max + 1} characters ("nnnnnnnnnnnnnnnnnnnnnnnn"...)`,
    );
    // A hostile length is refused as quickly, and the message does not quote it whole.
    const huge = 'n'.repeat(1_000_000);
    expect(() => named(huge)).toThrow(/^w\.yml:1:7: name: expected at most 64 characters .{0,120}$/);
  });

  it('clients: auto stops at the largest client count', () => {
    expect(Math.max(...(workload('clients: auto\n').clients as number[]))).toBeLessThanOrEqual(CLIENTS.max);
  });
});

describe('the bounds themselves', () => {
  it.each(Object.entries(BOUNDS))('%s is a range of whole numbers', (_name, bound) => {
    expect(Number.isSafeInteger(bound.min) && Number.isSafeInteger(bound.max)).toBe(true);
    expect(bound.min).toBeGreaterThanOrEqual(0);
    expect(bound.max).toBeGreaterThan(bound.min);
    expect(withinBound(bound.max, bound)).toBe(true);
    expect(withinBound(bound.max + 1, bound)).toBe(false);
    expect(withinBound(bound.min + 0.5, bound)).toBe(false);
    expect(rangeText(bound)).toBe(`from ${bound.min} to ${bound.max}`);
  });

  it('keeps every timed wait inside what a Node timer can hold (2^31 - 1 ms)', () => {
    // A run is killed by a timer at its duration plus a grace; a timer past 24.8 days fires at once.
    for (const b of [BOUNDS.DURATION_S, BOUNDS.WARMUP_S, BOUNDS.TIME_BUDGET_S]) {
      expect(b.max * 1000).toBeLessThan(2 ** 31 - 1);
    }
  });
});

describe('the docs state the ranges the code checks', () => {
  const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const span = (b: Bound) => `${b.min} to ${b.max}`;

  it("action.yml's inputs of a size (and so docs/action.md's table)", () => {
    const inputs = (parse(read('action.yml')) as { inputs: Record<string, { description: string }> }).inputs;
    const sizes: Array<[string, string]> = [
      ['rounds', span(ROUNDS)],
      ['max-rounds', span(ROUNDS)],
      ['duration', span(DURATION_S)],
      ['clients', span(CLIENTS)],
      ['client-counts', span(CLIENTS)],
    ];
    for (const [input, range] of sizes) expect(inputs[input]!.description, input).toContain(range);
  });

  it("docs/workloads.md's field table", () => {
    const table = read('docs/workloads.md');
    const rows: Array<[string, string]> = [
      ['scale', span(SCALE)],
      ['clients', span(CLIENTS)],
      ['duration', span(DURATION_S)],
      ['rounds', span(ROUNDS)],
    ];
    for (const [field, range] of rows) {
      const row = table.split('\n').find((l) => l.startsWith(`| \`${field}\` |`));
      expect(row, field).toContain(range);
    }
  });
});
