/**
 * Bad input by property, generated rather than listed: every value-taking CLI flag whose parser validates
 * is fed hostile values, every Action input likewise through parseInputs, every workload field a value of
 * the wrong type, every results-document field a wrong shape. Each refusal must be one clear line that names
 * the flag, input, field or file and says what is expected: exit code 2 for the CLI, a UserError for the
 * Action and the readers, no stack trace, nothing started (the CLI cases refuse while parsing, before any
 * command runs). The hand-written cases with exact messages are in bad-input.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseInputs } from '../../src/adapters/action/inputs.js';
import { commands } from '../../src/adapters/cli/commands/index.js';
import { main } from '../../src/adapters/cli/commands/main.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { parseResults } from '../../src/store/read-results.js';
import { UserError } from '../../src/core/util/errors.js';
import { ACTION_INPUT_DEFAULTS } from '../helpers/action-inputs.js';

const root = new URL('../../', import.meta.url).pathname;

/** Values no validated flag or input should take (each parser refuses its own subset). */
const HOSTILE = [
  'abc',
  '',
  ' ',
  '-1',
  '0',
  '1.5',
  '1e999',
  'NaN',
  '0x10',
  '9'.repeat(30),
  // Nine digits, as a /pgperf comment could give: above every bounded size (src/core/bounds.ts), so each
  // flag and input of a size refuses it while parsing, before a plan proportional to it is built.
  '999999999',
  'x\u0007y',
  '@org/team',
];

/** Runs the CLI in-process; stdout and stderr are captured, the exit code is main()'s. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const saved = [process.stderr.write, process.stdout.write] as const;
  const capture = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  process.stderr.write = capture;
  process.stdout.write = capture;
  try {
    return { code: await main(args), out };
  } finally {
    [process.stderr.write, process.stdout.write] = saved;
    process.exitCode = undefined;
  }
}

interface FlagCase {
  command: string;
  flag: string;
  value: string;
}

/** Every (command, flag, value) whose flag parser refuses the value: the cases the CLI must refuse. */
function flagCases(): FlagCase[] {
  const cases: FlagCase[] = [];
  const walk = (cmd: Command, names: string[]) => {
    for (const sub of cmd.commands) walk(sub, [...names, sub.name()]);
    for (const option of cmd.options as Option[]) {
      const parse = (option as Option & { parseArg?: (v: string, prev: unknown) => unknown }).parseArg;
      if (!option.long || !parse || !(option.required || option.optional)) continue;
      for (const value of HOSTILE) {
        let refused = false;
        try {
          parse(value, option.defaultValue);
        } catch {
          refused = true;
        }
        if (refused) cases.push({ command: names.join(' '), flag: option.long, value });
      }
    }
  };
  for (const make of commands) {
    const cmd = make();
    walk(cmd, [cmd.name()]);
  }
  return cases;
}

const cliCases = flagCases();

describe('every validated CLI flag refuses hostile values', () => {
  it.each(cliCases)('$command $flag $value', async ({ command, flag, value }) => {
    const ran = await cli([...command.split(' '), `${flag}=${value}`]);
    expect(ran.code).toBe(2);
    const lines = ran.out.trim().split('\n');
    // One line names the flag and says what is expected (help text may follow it).
    expect(lines[0]).toContain(flag);
    expect(lines[0]).toMatch(/must|expected|one of|got/);
    expect(ran.out).not.toMatch(/internal error|\n\s+at .*:\d+:\d+/);
  });
});

it('every flag of a size refuses nine digits while parsing (the bounds of src/core/bounds.ts)', () => {
  const refused = new Set(
    cliCases.filter((c) => c.value === '999999999').map((c) => `${c.command} ${c.flag}`),
  );
  const sizes = [
    ...['run', 'calibrate', 'nightly', 'bisect', 'plan'].flatMap((c) => [`${c} --rounds`, `${c} --duration`]),
    ...['--max-rounds', '--schedule', '--time-budget', '--confirm-rounds', '--sentinel-rounds'].map(
      (f) => `run ${f}`,
    ),
    'bisect --max-rounds',
    'bisect --clients',
    'bisect --tries',
    'demo --rounds',
  ];
  expect(sizes.filter((f) => !refused.has(f))).toEqual([]);
});

const defaults = ACTION_INPUT_DEFAULTS;

/** Every (input, value) that parseInputs refuses when all other inputs keep their defaults. */
function inputCases(): Array<{ input: string; value: string; error: unknown }> {
  const cases: Array<{ input: string; value: string; error: unknown }> = [];
  for (const input of Object.keys(defaults)) {
    for (const value of HOSTILE) {
      try {
        parseInputs((name) => (name === input ? value : (defaults[name] ?? '')));
      } catch (error) {
        cases.push({ input, value, error });
      }
    }
  }
  return cases;
}

const actionCases = inputCases();

it('every input of a size refuses nine digits (the bounds of src/core/bounds.ts)', () => {
  const refused = new Set(actionCases.filter((c) => c.value === '999999999').map((c) => c.input));
  const sizes = [
    'rounds',
    'max-rounds',
    'duration',
    'confirm-rounds',
    'clients',
    'client-counts',
    'time-budget',
  ];
  expect(sizes.filter((i) => !refused.has(i))).toEqual([]);
});

describe('every validated Action input refuses hostile values with a UserError naming it', () => {
  it.each(actionCases)("input '$input' = $value", ({ input, error }) => {
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(new RegExp(`input '${input}'|'${input}'`));
  });
});

/** A value of the wrong kind for a field, by the kind of its default or schema type. */
function wrongValuesFor(type: string | undefined): unknown[] {
  switch (type) {
    case 'integer':
    case 'number':
      // 1e12: above the bound of every size (a scale of 1e12 was accepted and failed only while loading).
      return ['many', -7, { a: 1 }, 1e12];
    case 'string':
      return [12, ['a'], { a: 1 }];
    case 'boolean':
      return ['yes please', 3];
    case 'array':
      return ['one', { a: 1 }];
    case 'object':
      return ['one', [1]];
    default:
      return [{ unexpected: true }];
  }
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
}

function workloadCases(): Array<{ tool: string; field: string; value: unknown }> {
  const schema = JSON.parse(
    readFileSync(path.join(root, 'workloads/workload.schema.json'), 'utf8'),
  ) as JsonSchema;
  const variants = schema.anyOf ?? schema.oneOf ?? [schema];
  const base: Record<string, Record<string, unknown>> = {
    pgbench: { name: 'w', tool: 'pgbench', builtin: 'select-only', clients: [1] },
    sysbench: { name: 'w', tool: 'sysbench', script: 'oltp_point_select', clients: [1] },
  };
  const cases: Array<{ tool: string; field: string; value: unknown }> = [];
  for (const variant of variants) {
    const props = variant.properties ?? {};
    const tool = (props.tool?.enum?.[0] as string | undefined) ?? (props.tool as { const?: string })?.const;
    if (!tool || !base[tool]) continue;
    for (const [field, spec] of Object.entries(props)) {
      if (field === 'tool') continue;
      const type = Array.isArray(spec.type) ? undefined : (spec.type ?? spec.anyOf?.[0]?.type);
      const values = spec.enum
        ? ['not-a-choice', ...wrongValuesFor(type as string)]
        : wrongValuesFor(type as string);
      for (const value of values) cases.push({ tool, field, value });
    }
  }
  return cases;
}

const yamlCases = workloadCases();

describe('every workload field refuses a value of the wrong kind, naming the file and the field', () => {
  it.each(yamlCases)('$tool $field = $value', ({ tool, field, value }) => {
    const doc = {
      ...(tool === 'pgbench'
        ? { name: 'w', tool, builtin: 'select-only', clients: [1] }
        : { name: 'w', tool, script: 'oltp_point_select', clients: [1] }),
      [field]: value,
    };
    let error: unknown;
    try {
      parseWorkload(JSON.stringify(doc), 'bad.yml');
    } catch (e) {
      error = e;
    }
    // A few wrong kinds are legitimately coerced (e.g. a number where a string setting is fine): those pass.
    if (error === undefined) return;
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).toContain('bad.yml');
    expect(message).toContain(field);
  });

  it('refuses 1e12 for every field of a size, naming its range (a scale of 1e12 used to reach the load)', () => {
    const sizes: Record<string, string[]> = {
      pgbench: ['scale', 'threads', 'duration', 'warmup', 'rounds', 'retries'],
      sysbench: ['tables', 'tableSize', 'duration', 'warmup', 'rounds', 'retries'],
    };
    for (const [tool, fields] of Object.entries(sizes)) {
      for (const field of fields) {
        const doc = {
          ...(tool === 'pgbench'
            ? { name: 'w', tool, builtin: 'select-only', clients: [1] }
            : { name: 'w', tool, script: 'oltp_point_select', clients: [1] }),
          [field]: 1e12,
        };
        expect(() => parseWorkload(JSON.stringify(doc), 'bad.yml'), `${tool} ${field}`).toThrow(
          new RegExp(
            `bad\\.yml:1:\\d+: ${field}: expected a whole number from \\d+ to \\d+, got 1000000000000$`,
          ),
        );
      }
    }
  });

  it('refuses most of them (the generator is not vacuous)', () => {
    let refused = 0;
    for (const { tool, field, value } of yamlCases) {
      const doc = {
        ...(tool === 'pgbench'
          ? { name: 'w', tool, builtin: 'select-only', clients: [1] }
          : { name: 'w', tool, script: 'oltp_point_select', clients: [1] }),
        [field]: value,
      };
      try {
        parseWorkload(JSON.stringify(doc), 'bad.yml');
      } catch {
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(yamlCases.length * 0.8);
  });
});

const fixture = JSON.parse(
  readFileSync(path.join(root, 'test/fixtures/results/pgperf-15-smoke-select-only.json'), 'utf8'),
) as Record<string, unknown>;

const resultsCases = [
  ...['schemaVersion', 'status', 'arms', 'samples', 'plan', 'workloads', 'environment'].flatMap((field) =>
    [null, 'text', 42, [], {}].map((value) => ({ field, value })),
  ),
  { field: 'samples', value: [{ round: 'one' }] },
  { field: 'arms', value: [{ label: 7 }] },
];

describe('a results document of a wrong shape is refused, naming the file', () => {
  it.each(resultsCases)('$field = $value', ({ field, value }) => {
    let error: unknown;
    try {
      parseResults(JSON.stringify({ ...fixture, [field]: value }), 'bad-results.json');
    } catch (e) {
      error = e;
    }
    // A shape the reader can take (e.g. an empty workloads map) is fine; a refusal must be clear.
    if (error === undefined) return;
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toContain('bad-results.json');
  });
});

it('refuses all but the shapes a reader can take (an empty samples list, an empty workloads map)', () => {
  const accepted = resultsCases.filter(({ field, value }) => {
    try {
      parseResults(JSON.stringify({ ...fixture, [field]: value }), 'bad-results.json');
      return true;
    } catch {
      return false;
    }
  });
  expect(accepted.map(({ field, value }) => `${field}=${JSON.stringify(value)}`)).toEqual([
    'samples=[]',
    'workloads={}',
  ]);
});

it('walks at least 150 bad inputs across the adapters and file kinds', () => {
  const total = cliCases.length + actionCases.length + yamlCases.length + resultsCases.length;
  expect(cliCases.length).toBeGreaterThan(50);
  expect(actionCases.length).toBeGreaterThan(30);
  expect(total).toBeGreaterThanOrEqual(150);
});
