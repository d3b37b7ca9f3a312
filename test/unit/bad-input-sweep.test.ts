/**
 * Bad input by property, generated rather than listed: every value-taking CLI flag whose parser validates
 * is fed hostile values, every Action input likewise through parseInputs, every workload field a value of
 * the wrong type, every results-document field a wrong shape. Each refusal must be one clear line that names
 * the flag, input, field or file and says what is expected: exit code 2 for the CLI, a UserError for the
 * Action and the readers, no stack trace, nothing started (the CLI cases refuse while parsing, before any
 * command runs). The hand-written cases with exact messages are in bad-input.test.ts.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseInputs } from '../../src/adapters/action/inputs.js';
import { commands } from '../../src/adapters/cli/commands/index.js';
import { main } from '../../src/adapters/cli/commands/main.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { parseResults } from '../../src/store/read-results.js';
import { UserError } from '../../src/core/util/errors.js';
import { PLAUSIBLE, type MetricName, type PlausibleRange } from '../../src/core/results/metrics.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { ACTION_INPUT_DEFAULTS } from '../helpers/action-inputs.js';
import { sameInstallRun } from '../helpers/cli.js';
import { badDirectoryPaths, useUnwritablePaths } from '../helpers/unwritable-paths.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';

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
    'run --clients',
    'plan --clients',
    'bisect --tries',
    'attribute --max-commits',
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
) as RunResult & Record<string, unknown>;

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

type Doc = RunResult & Record<string, unknown>;
const edited = (edit: (d: Doc) => void): Doc => {
  const doc = structuredClone(fixture) as Doc;
  edit(doc);
  return doc;
};

/**
 * Documents of the right shape that no run writes, each refused by every reader as consolidation refuses a
 * shard (src/core/results/check-results.ts): before, every reader but consolidate took them without a word.
 */
const consistencyCases: Array<{ name: string; doc: Doc; field: RegExp }> = [
  ...[0, 17, 53].map((i) => ({
    name: `samples[${i}] twice`,
    doc: edited((d) => d.samples.push(structuredClone(d.samples[i]!))),
    field: new RegExp(`samples\\[${i}\\] and samples\\[54\\] are the same run .*duplicate samples`),
  })),
  {
    name: 'a retry numbered like the first attempt',
    doc: edited((d) => d.samples.push({ ...structuredClone(d.samples[5]!), status: 'failed' })),
    field: /samples\[5\] and samples\[54\] are the same run/,
  },
  ...['ghost', 'Base', 'head ', ''].map((arm) => ({
    name: `a sample of the undeclared arm ${JSON.stringify(arm)}`,
    doc: edited((d) => (d.samples[7]!.arm = arm)),
    field: /samples\[7\] is of the arm '.*', which is not an arm of the run/,
  })),
  {
    name: 'an empty cell list with samples',
    doc: edited((d) => (d.plan.cells = [])),
    field: /samples\[0\] is of the cell \S+, which is not a cell of plan\.cells \(none: the plan is empty\)/,
  },
  {
    name: 'a sample of a cell outside the plan',
    doc: edited((d) => (d.samples[9]!.clients = 3)),
    field: /samples\[9\] is of the cell \S+@3, which is not a cell of plan\.cells/,
  },
  {
    name: 'a cell listed twice',
    doc: edited((d) => d.plan.cells.push(structuredClone(d.plan.cells[0]!))),
    field: /plan\.cells\[9\] lists smoke@1 twice/,
  },
  {
    name: 'an arm label given twice',
    doc: edited((d) => d.arms.push(structuredClone(d.arms[0]!))),
    field: /arms\[2\] is labelled 'base' like an earlier arm/,
  },
  {
    name: 'a confirmation sample of an undeclared arm',
    doc: edited((d) => {
      d.confirmation = {
        rounds: 1,
        seed: 1,
        cells: [{ head: 'head', workload: 'smoke', clients: 1, metric: 'tps' }],
        samples: [{ ...structuredClone(d.samples[0]!), arm: 'ghost' }],
      };
    }),
    field: /confirmation\.samples\[0\] is of the arm 'ghost'/,
  },
];

/** Per metric, values no run can produce (PLAUSIBLE in metrics.ts), in a sample that succeeded. */
const metricCases = (Object.keys(PLAUSIBLE) as MetricName[]).flatMap((metric) => {
  const range = PLAUSIBLE[metric];
  return [1e308, range.max * 2, -1, -1e-9, ...(range.minExcluded ? [0] : [])].map((value) => ({
    metric,
    value,
  }));
});

describe('a results document no run writes is refused, naming the file and the field', () => {
  it.each(consistencyCases)('$name', ({ doc, field }) => {
    expect(() => parseResults(JSON.stringify(doc), 'bad-results.json')).toThrow(UserError);
    expect(() => parseResults(JSON.stringify(doc), 'bad-results.json')).toThrow(
      new RegExp(`^bad-results\\.json: ${field.source}`),
    );
  });

  it.each(metricCases)('samples[0].metrics.$metric = $value', ({ metric, value }) => {
    const doc = edited((d) => (d.samples[0]!.metrics[metric] = value));
    expect(() => parseResults(JSON.stringify(doc), 'bad-results.json')).toThrow(
      new RegExp(`^bad-results\\.json: samples\\[0\\]\\.metrics\\.${metric} is \\S+: expected .* at most`),
    );
  });

  it('takes the values at the bounds, and 0 from a failed run', () => {
    for (const [metric, range] of Object.entries(PLAUSIBLE) as Array<[MetricName, PlausibleRange]>) {
      const low = range.minExcluded ? 1e-9 : range.min;
      for (const value of [low, range.max]) {
        expect(() =>
          parseResults(JSON.stringify(edited((d) => (d.samples[0]!.metrics[metric] = value))), 'f'),
        ).not.toThrow();
      }
      const failed = edited((d) =>
        Object.assign(d.samples[0]!, { status: 'failed', metrics: { [metric]: 0 } }),
      );
      expect(() => parseResults(JSON.stringify(failed), 'f')).not.toThrow();
    }
  });

  it('warns about unknown top-level fields, naming them, and takes the document (a newer pgperf may add fields)', () => {
    const warnings: string[] = [];
    const doc = edited((d) => Object.assign(d, { futureField: { x: 1 }, sampels: [] }));
    const read = parseResults(JSON.stringify(doc), 'new.json', { warn: (m) => warnings.push(m) });
    expect(read.samples).toHaveLength(54);
    expect(warnings).toEqual([
      "new.json: unknown top-level fields 'futureField', 'sampels', ignored (a newer pgperf may add fields; check the spelling of a field you edited)",
    ]);
    const quiet: string[] = [];
    parseResults(JSON.stringify(fixture), 'f', { warn: (m) => quiet.push(m) });
    expect(quiet).toEqual([]);
  });
});

it('walks at least 150 bad inputs across the adapters and file kinds', () => {
  const total =
    cliCases.length +
    actionCases.length +
    yamlCases.length +
    resultsCases.length +
    consistencyCases.length +
    metricCases.length;
  expect(cliCases.length).toBeGreaterThan(50);
  expect(actionCases.length).toBeGreaterThan(30);
  expect(total).toBeGreaterThanOrEqual(150);
});

/**
 * Every flag that names a directory pgperf writes, given a path that cannot hold files: refused before
 * anything is built or started (no initdb, no server, no build, in well under the time a cluster takes),
 * exit 2, one `pgperf:` line naming the flag, the path and the OS error. `--out /proc/x` used to build and
 * load both clusters and then spin for ever in node's recursive mkdir; `--out /sys/x` failed after both
 * clusters were set up. Each case runs the real command line with a real install, so a check that does not
 * refuse starts servers and fails the case.
 */
describe('every directory flag refuses a path that cannot hold files, before anything starts', () => {
  const bin = installedBinDir();
  const smoke = path.join(root, 'workloads/smoke.yml');
  const results = path.join(root, 'test/fixtures/results/pgperf-15-smoke-select-only.json');
  const paths = useUnwritablePaths('pgperf-bad-paths-');
  const { dir: work, readOnly } = paths;
  chmodSync(work, 0o755);
  const ok = (name: string) => path.join(work, 'ok', name);
  mkdirSync(ok('tmp'), { recursive: true });

  /** Paths no directory flag may take, by what they are. */
  const BAD_PATHS = badDirectoryPaths('bad-input', paths);

  /** Everything but the flag under test, each directory a good one; the flag comes last (the last wins). */
  const measuring = ['--out', ok('out'), '--tmp-dir', ok('tmp'), '--cache-dir', ok('cache')];
  const COMMANDS: Record<string, (flag: string) => string[]> = {
    'run --out': () => [...runArms(), ...measuring, '--no-store'],
    'run --tmp-dir': () => [...runArms(), ...measuring, '--no-store'],
    'run --store': () => [...runArms(), ...measuring],
    'run --cache-dir': () => [
      'run',
      '--base',
      'REL_17_STABLE',
      '--head',
      'master',
      '--workload',
      smoke,
      ...measuring,
      '--no-store',
    ],
    'calibrate --out': () => calibrate(),
    'calibrate --tmp-dir': () => calibrate(),
    'calibrate --store': () => calibrate().filter((a) => a !== '--no-store'),
    'nightly --out': () => nightly(),
    'nightly --tmp-dir': () => nightly(),
    'nightly --store': () => nightly(),
    'nightly --site': () => nightly(),
    'nightly --cache-dir': () => [
      'nightly',
      '--ref',
      'master',
      '--workload',
      smoke,
      ...measuring,
      '--store',
      ok('store'),
    ],
    'attribute --out': () => ['attribute', '--from', 'a', '--to', 'b', '--workload', smoke],
    'attribute --tmp-dir': () => ['attribute', '--from', 'a', '--to', 'b', '--workload', smoke],
    'attribute --cache-dir': () => ['attribute', '--from', 'a', '--to', 'b', '--workload', smoke],
    'bisect --out': () => bisect(),
    'bisect --tmp-dir': () => bisect(),
    'bisect --cache-dir': () => bisect(),
    'bisect --store': () => bisect().filter((a) => a !== '--no-store'),
    'demo --out': () => ['demo', '--bin', bin, '--out', ok('out'), '--store', ok('store')],
    'demo --store': () => ['demo', '--bin', bin, '--out', ok('out')],
    'history --out': () => ['history', '--results', results, '--out', ok('site')],
    'build --cache-dir': () => ['build', '--ref', 'master', '--cache-dir', ok('cache')],
    'store import --store': () => ['store', 'import', results],
  };
  function runArms() {
    return sameInstallRun(bin, { workload: smoke, rounds: 5, force: true });
  }
  function calibrate() {
    return ['calibrate', '--bin', bin, '--workload', smoke, ...measuring.slice(0, 4), '--no-store'];
  }
  function nightly() {
    return ['nightly', '--bin', bin, '--workload', smoke, ...measuring.slice(0, 4), '--store', ok('store')];
  }
  function bisect() {
    return [
      'bisect',
      '--good',
      'a',
      '--bad',
      'b',
      '--workload',
      smoke,
      '--clients',
      '1',
      ...measuring,
      '--no-store',
    ];
  }
  /** Flags that name a directory pgperf only reads or checks (doctor), or a file: not directories it writes. */
  const NOT_WRITTEN = new Set([
    'doctor --cache-dir',
    'doctor --tmp-dir',
    'history --store',
    'compare --store',
    'plan --store',
    'store list --store',
    'store show --store',
    'store export --store',
    'store export --out',
  ]);

  it('covers every --out, --tmp-dir, --cache-dir, --site and --store of every command', () => {
    const found: string[] = [];
    const walk = (cmd: Command, names: string[]) => {
      for (const sub of cmd.commands) walk(sub, [...names, sub.name()]);
      for (const option of cmd.options as Option[]) {
        if (['--out', '--tmp-dir', '--cache-dir', '--site', '--store'].includes(option.long ?? '')) {
          found.push(`${names.join(' ')} ${option.long}`);
        }
      }
    };
    for (const make of commands) {
      const cmd = make();
      walk(cmd, [cmd.name()]);
    }
    expect(found.filter((f) => !COMMANDS[f] && !NOT_WRITTEN.has(f))).toEqual([]);
  });

  const cases = Object.keys(COMMANDS).flatMap((key) => BAD_PATHS.map(([kind, bad]) => ({ key, kind, bad })));
  it.each(cases)('$key: $kind', async ({ key, kind, bad }) => {
    if (bad === undefined) {
      // No read-only directory can be made on this file system (see makeReadOnlyDir): said, not hidden.
      expect(readOnly.ok, kind).toBe(false);
      return;
    }
    const flag = key.slice(key.lastIndexOf(' ') + 1);
    const args = [...COMMANDS[key]!(flag), flag, bad];
    const started = Date.now();
    const ran = await cli(args);
    const took = Date.now() - started;
    expect(ran.code, ran.out).toBe(2);
    const refusals = ran.out.split('\n').filter((l) => l.startsWith('pgperf: '));
    expect(refusals, ran.out).toHaveLength(1);
    const line = refusals[0]!;
    expect(line).toContain(flag);
    expect(line).toContain(bad);
    expect(line).toMatch(/\bE[A-Z]{3,}\b|is a file|not a directory|no such directory/);
    expect(line).toMatch(/expected|choose|pass --store/);
    // Nothing started: no cluster, no build, no measured run, nothing left behind.
    expect(ran.out).not.toMatch(/initdb|Setting up clusters|Building|round \d+\/\d+|internal error/);
    expect(processesMentioning(work)).toEqual([]);
    expect(readdirSync(ok('tmp'))).toEqual([]);
    // Far below what one cluster takes (seconds), and bounded (the /proc case never ended).
    expect(took).toBeLessThan(5000);
  });
});
