/**
 * Every printed command runs as printed. The shell commands of README.md and docs/*.md (```sh blocks,
 * `pgperf ...` lines of plain blocks, the code spans of the README's quick start) are extracted, and each
 * is classified below: run here, as printed or with its placeholders filled in (the table says which and
 * why), or not runnable on one machine (the table says why: it builds PostgreSQL from the network, needs a
 * GitHub runner, a PostgreSQL store server, root and cpufreq, or hours). A command added to the docs without
 * a line here fails the first test; a flag a printed command names that its command does not accept fails
 * the second, runnable or not.
 *
 * The commands run with `pgperf` on the PATH the way the quick start puts it there (scripts/link-cli.sh,
 * into a directory of this test), HOME in the test's directory (so the default store is the test's),
 * from a working directory holding `workloads/` as a clone does, and against the results of one real run
 * of this test: base with a 10 ms commit_delay (commit_siblings 0: every commit waits; the demo's
 * synchronous_commit depends on the disk's flush latency, which tmpfs or a write-back cache makes free) and
 * head without it, smoke at one client count (`--clients 1`): an improvement no noise can hide, so its
 * report prints a Reproduce block, which is then run as a user pastes it and must reproduce the verdict.
 *
 * PGPERF_DOCS_CLI=/path/to/cli.js links another build instead of dist/cli.js (to check the docs against
 * src/ before dist/ is rebuilt: `npx esbuild src/cli.ts --bundle ...` with scripts/build.mjs's banner, into
 * a directory that has the clone's `workloads/` beside it).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile, copyFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/adapters/cli/commands/index.js';
import { installedBinDir, processesMentioning } from '../../testkit/postgres.js';
import { DOC_PAGES, REPO_ROOT } from '../helpers/doc-pages.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

/** One shell command of a page: continuation lines joined, whitespace collapsed. */
interface DocCommand {
  page: string;
  line: number;
  text: string;
}

/**
 * The shell commands of a page: every command of its ```sh/```bash blocks (not comments), every line of
 * its plain ``` blocks that starts with `pgperf ` (a command, not a `pgperf:` message), and for README.md
 * the `pgperf ...` code spans of its quick start.
 */
function shellCommands(page: string): DocCommand[] {
  const lines = readFileSync(path.join(REPO_ROOT, page), 'utf8').split('\n');
  const found: DocCommand[] = [];
  let fence: { ticks: string; info: string } | undefined;
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^\s*(`{3,})(\S*)\s*$/.exec(line);
    if (fence) {
      if (marker && marker[1] === fence.ticks && marker[2] === '') {
        fence = undefined;
        continue;
      }
      const shell = fence.info === 'sh' || fence.info === 'bash';
      if (!(shell ? line.trim() !== '' && !line.trim().startsWith('#') : /^\s*pgperf /.test(line))) continue;
      let text = line.trim();
      const start = i;
      while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i]!.trim()}`;
      found.push({ page, line: start + 1, text: text.replace(/\s+/g, ' ') });
      continue;
    }
    if (marker) {
      fence = { ticks: marker[1]!, info: marker[2]! };
      continue;
    }
    const heading = /^#{1,6} +(.*?)\s*$/.exec(line);
    if (heading) section = heading[1]!;
    if (page === 'README.md' && section === 'Quick start') {
      // Code spans may wrap: join this line with the next to catch one that does.
      const joined = `${line}\n${lines[i + 1] ?? ''}`;
      for (const m of joined.matchAll(/`(pgperf [^`]+)`/g)) {
        if (m.index < line.length) found.push({ page, line: i + 1, text: m[1]!.replace(/\s+/g, ' ') });
      }
    }
  }
  return found;
}

/** What this test does with one printed command. */
type Plan =
  /** Run here: each entry is run by bash in the working directory; AS_PRINTED is the printed text itself. */
  | { runs: string[]; codes?: number[] }
  /** Not runnable on one machine, and why. */
  | { not: string };

const AS_PRINTED = '<as printed>';
/** `pgperf compare` exits as the gate decides on a real run: 0 passed or pending, 1 failed; both ran. */
const DECIDED = [0, 1];

const RESULTS = 'results.json';
/** The id of the stored run: the docs' ids name runs of their authors' stores. */
const ID = '$ID';

const RELEASE =
  "a maintainer's release step in a clone with push rights (it commits, tags or pushes); docs/releasing.md's workflow is tested by its own test";

const BUILDS =
  'builds PostgreSQL from the postgres repository over the network (clone and compile, minutes to hours); build.int.test.ts, bisect.int.test.ts and nightly.int.test.ts build from local sources';

/** Every printed command, keyed `page: text`, and what is done with it. */
const PLANS: Record<string, Plan> = {
  'README.md: npm run quickstart': {
    not: 'changes the machine (apt-get install, a link in /usr/local/bin) and runs the two-minute demo; its parts run here: scripts/link-cli.sh below, the demo in cli.int.test.ts',
  },
  'README.md: npm run test:all': { not: 'is the whole test suite, this test among it' },
  'README.md: pgperf store list': { runs: [AS_PRINTED] },
  'README.md: pgperf ...': { not: 'stands for any pgperf command' },
  // The demo's next steps, as the quick start names them (demo-next.test.ts runs them after a saved run).
  'README.md: pgperf history --out pgperf-history': { runs: [AS_PRINTED] },
  'README.md: pgperf run --help': { runs: [AS_PRINTED] },
  // The quick start's arms on Debian 12's PostgreSQL 15 (scripts/setup.sh installs it), the shipped smoke at
  // 1 and 8 clients: about a minute.
  'README.md: pgperf run --arm base=/usr/lib/postgresql/15/bin --arm head=/usr/lib/postgresql/15/bin --set head:synchronous_commit=off --workload smoke --clients 1,8':
    { runs: [AS_PRINTED], codes: DECIDED },
  'README.md: pgperf compare base.json head.json': { runs: [AS_PRINTED], codes: DECIDED },

  'docs/bisect.md: pgperf bisect --repo https://github.com/postgres/postgres.git --good 1a2b3c4d... --bad master --workload workloads/select-only.yml --clients 8 [--rounds 10 | --max-rounds 30] [--tries 2] [--json]':
    { not: BUILDS },

  'docs/attribute.md: pgperf attribute --repo https://github.com/postgres/postgres.git --from REL_17_0 --to REL_18_0 [--workload select-only ...] [--floor 1] [--max-commits 40] [--out pgperf-attribution] [--cache-dir DIR] [--build-option -DNAME=VALUE ...] [--instruction-counter auto|cachegrind|perf] [--json]':
    { not: BUILDS },
  'docs/cli.md: pgperf attribute --from REL_17_0 --to REL_18_0 [--repo URL|PATH] [--workload select-only] [--floor 1] [--max-commits 40] [--out pgperf-attribution] [--json]':
    { not: BUILDS },

  'docs/cli.md: pgperf run --arm base=/opt/pg/base/bin --arm head=/opt/pg/head/bin --workload select-only --rounds 8 --out pgperf-results':
    {
      not: 'needs two installs under /opt/pg, and measures the select-only sweep (7 client counts x 8 rounds of a minute: about 2 hours); this test runs pgperf run on the installed PostgreSQL',
    },
  'docs/cli.md: pgperf compare "$(ls -d pgperf-results/run-* | tail -n 1)/results.json" [--json]': {
    runs: [
      'pgperf compare "$(ls -d pgperf-results/run-* | tail -n 1)/results.json"',
      'pgperf compare "$(ls -d pgperf-results/run-* | tail -n 1)/results.json" --json',
    ],
    codes: DECIDED,
  },
  'docs/cli.md: pgperf compare base-run/results.json head-run/results.json': {
    runs: [AS_PRINTED],
    codes: DECIDED,
  },
  'docs/cli.md: pgperf stat base.txt head.txt [--alpha 0.05] [--threshold 2] [--json]': {
    runs: [
      'pgperf stat base.txt head.txt',
      'pgperf stat base.txt head.txt --alpha 0.05 --threshold 2 --json',
    ],
  },
  'docs/cli.md: pgperf schema': { runs: [AS_PRINTED] },
  'docs/cli.md: pgperf build --repo https://github.com/postgres/postgres.git --ref master [--patch v3-0001-foo.patch ...] [--prefix DIR] [--cache-dir DIR] [--build-option -Db_lto=true]':
    { not: BUILDS },
  'docs/cli.md: pgperf compare results.json --format markdown [--comment-id ID]': {
    runs: [
      `pgperf compare ${RESULTS} --format markdown`,
      `pgperf compare ${RESULTS} --format markdown --comment-id pr-perf`,
    ],
    codes: DECIDED,
  },
  'docs/cli.md: pgperf compare results.json --alpha 0.01 --threshold 3 --metric latencyAvgMs': {
    runs: [AS_PRINTED],
    codes: DECIDED,
  },
  'docs/cli.md: pgperf plan --workload workloads/select-only.yml --shards 3 [--json]': {
    runs: [
      'pgperf plan --workload workloads/select-only.yml --shards 3',
      'pgperf plan --workload workloads/select-only.yml --shards 3 --json',
    ],
  },
  'docs/cli.md: pgperf run ... --seed 7 --shard 2/3 # one shard; then: pgperf consolidate shard*/run-*/results.json':
    { not: '`...` stands for the arms and workloads; fleet.int.test.ts runs shards and consolidates them' },
  'docs/cli.md: pgperf nightly --ref master [--repo URL] --workload workloads/select-only.yml [--site DIR] [--github-repo O/N]':
    { not: BUILDS },
  'docs/cli.md: pgperf store list|show ID|export ID|import RESULTS.json... [--store DIR|URL] [--json]': {
    runs: [
      'pgperf store list --json',
      `pgperf store show ${ID}`,
      `pgperf store export ${ID} --out exported.json`,
      `pgperf store import ${RESULTS} --store other-store`,
      'pgperf store list --store other-store',
    ],
  },
  'docs/cli.md: pgperf doctor [--json] [--strict]': {
    // --strict exits 1 when the machine is "not fit for benchmarking", as documented.
    runs: ['pgperf doctor', 'pgperf doctor --json', 'pgperf doctor --strict'],
    codes: [0, 1],
  },
  'docs/cli.md: pgperf changepoints nightly-tps.txt [--json] [--p 0.001] [--min-segment 3] [--magnitude 2] [--log]':
    {
      runs: [
        'pgperf changepoints nightly-tps.txt',
        'pgperf changepoints nightly-tps.txt --json --p 0.001 --min-segment 3 --magnitude 2 --log',
      ],
    },
  'docs/cli.md: pgperf history [--store DIR|URL | --results FILE|DIR...] --out site/ [--repo-url https://github.com/postgres/postgres]':
    {
      runs: [
        'pgperf history --out site/',
        `pgperf history --results ${RESULTS} --out site-of-one/ --repo-url https://github.com/postgres/postgres`,
      ],
    },
  'docs/cli.md: pgperf run --base master --head my-branch [--repo URL|PATH] [--merge-base] [--head-patch FILE...] --workload workloads/select-only.yml':
    { not: BUILDS },
  'docs/cli.md: pgperf run --cf 4711 [--repo URL|PATH] [--base REF] --workload workloads/select-only.yml': {
    not: `${BUILDS}; commitfest.int.test.ts runs --cf on a local repository with cf/4711 and master`,
  },
  'docs/cli.md: pgperf compare monday/run-*/results.json tuesday/run-*/results.json': {
    runs: [AS_PRINTED],
    codes: DECIDED,
  },

  'docs/many-core.md: pgperf doctor # verdict, then every fact with its fix': { runs: [AS_PRINTED] },
  'docs/many-core.md: pgperf doctor --strict # exit 1 when the verdict is "not fit for benchmarking"': {
    runs: [AS_PRINTED],
    codes: [0, 1],
  },
  'docs/many-core.md: pgperf doctor --json # the same as JSON (what results.json records)': {
    runs: [AS_PRINTED],
  },
  'docs/many-core.md: pgperf doctor --window 5 --shared-buffers 8GB': { runs: [AS_PRINTED] },
  'docs/many-core.md: pgperf run ... --cpu-dma-latency 0 --governor performance # Action inputs: cpu-dma-latency, governor':
    {
      not: '`...` stands for the arms and workloads, and the controls need root and a cpufreq driver; controls-cli.int.test.ts runs them on a fake sysfs tree',
    },

  'docs/releasing.md: npm version 0.2.0 --no-git-tag-version # package.json and package-lock.json': {
    not: RELEASE,
  },
  'docs/releasing.md: npm run build # dist/ from src/: the Action runs the committed dist/': {
    not: 'rewrites dist/ in the clone; npm run check-dist, part of npm run test:all, runs it and fails when dist/ differs',
  },
  "docs/releasing.md: git commit -am 'pgperf 0.2.0'": { not: RELEASE },
  'docs/releasing.md: git tag v0.2.0': { not: RELEASE },
  'docs/releasing.md: git push origin HEAD v0.2.0': { not: RELEASE },

  'docs/runner.md: apt-get install gcc make bison flex perl meson ninja-build ccache pkg-config libreadline-dev zlib1g-dev libicu-dev git valgrind sysbench linux-perf postgresql postgresql-contrib':
    {
      not: 'installs Debian packages as root; scripts/setup.sh --tests installs them on this machine before the tests',
    },
  'docs/runner.md: pgperf doctor # this machine and this runner': { runs: [AS_PRINTED] },
  'docs/runner.md: pgperf doctor --cache-dir DIR --tmp-dir DIR --run-as USER': {
    runs: ['pgperf doctor --cache-dir build-cache --tmp-dir . --run-as pgperf'],
  },
  'docs/runner.md: pgperf doctor --strict # exit 1 when a fact is bad': { runs: [AS_PRINTED], codes: [0, 1] },

  'docs/statistics.md: pgperf calibrate --bin /usr/lib/postgresql/17/bin --workload workloads/select-only.yml --rounds 10 [--json]':
    {
      not: 'an A/A run of the select-only sweep (7 client counts x 10 rounds of a minute: over an hour) on PostgreSQL 17; calibrate.int.test.ts calibrates a small workload',
    },
  'docs/statistics.md: pgperf plan --workload workloads/select-only.yml [--store DIR|URL] [--threshold 2] [--alpha 0.05] [--rounds N] [--json]':
    {
      runs: [
        'pgperf plan --workload workloads/select-only.yml',
        'pgperf plan --workload workloads/select-only.yml --store other-store --threshold 2 --alpha 0.05 --rounds 10 --json',
      ],
    },

  'docs/steady-metrics.md: pgperf compare results.json --metric wal-bytes': {
    runs: [AS_PRINTED],
    codes: DECIDED,
  },

  'docs/store.md: pgperf store import pgperf-results/*/results.json # e.g. a downloaded artifact; importing again replaces':
    { runs: [AS_PRINTED] },
  'docs/store.md: pgperf store list # newest first': { runs: [AS_PRINTED] },
  'docs/store.md: pgperf store list --commit 1a2b3c4 --workload select-only --since 2026-11-01 --limit 20': {
    runs: [AS_PRINTED],
  },
  'docs/store.md: pgperf store list --fingerprint 59b0cf4c --json': { runs: [AS_PRINTED] },
  'docs/store.md: pgperf store show 20261123T132303Z-a92636b5 # arms, workloads, environment fingerprint': {
    runs: [`pgperf store show ${ID} # arms, workloads, environment fingerprint`],
  },
  'docs/store.md: pgperf store export 20261123T132303Z-a92636b5 --out base.json && pgperf compare base.json':
    {
      runs: [`pgperf store export ${ID} --out base.json && pgperf compare base.json`],
      codes: DECIDED,
    },
  'docs/store.md: PGPERF_STORE=postgresql://perf:***@db.internal/perf pgperf store list': {
    not: 'needs the PostgreSQL store server db.internal; store-pg.int.test.ts runs the store on a server it starts',
  },
  'docs/store.md: pgperf run --arm head=/opt/pg-head/bin --workload workloads/select-only.yml --baseline stored':
    {
      not: 'measures the select-only sweep (about an hour) against a stored run of it; stored-baseline.int.test.ts runs --baseline stored',
    },
  'docs/store.md: pgperf run --arm head=/opt/pg-head/bin --workload workloads/select-only.yml --baseline stored:1a2b3c4':
    { not: 'as --baseline stored, with a stored run of commit 1a2b3c4 (none here)' },
  'docs/store.md: pgperf run --arm head=/opt/pg-head/bin --workload workloads/select-only.yml --baseline stored:master':
    { not: 'as --baseline stored, with a stored run of master (none here)' },

  'docs/workloads.md: pgperf run --arm base=/usr/lib/postgresql/17/bin --arm head=/usr/lib/postgresql/18/bin --workload release-to-release':
    {
      not: 'needs PostgreSQL 17 and 18 installed from apt.postgresql.org (Debian 12 has 15); known-settings.int.test.ts runs two releases (15 and a built 18) in one comparison',
    },
  'docs/workloads.md: pgperf run --base REL_17_STABLE --head REL_18_STABLE --workload release-to-release-1000.yml':
    { not: BUILDS },
  'docs/workloads.md: pgperf run --arm base=/usr/lib/postgresql/17/bin --arm head=/usr/lib/postgresql/18/bin --client-bin /usr/lib/postgresql/18/bin --workload release-to-release-1000.yml':
    {
      not: 'needs PostgreSQL 17 and 18 installed, a many-core runner and about 90 minutes (scale 1000, 100 clients, 300-second runs)',
    },
};

const keyOf = (c: DocCommand) => `${c.page}: ${c.text}`;
const printed = DOC_PAGES.flatMap(shellCommands);

describe('the shell commands of README.md and docs/', () => {
  it('are each classified: run here (how) or not (why)', () => {
    expect(printed.length).toBeGreaterThan(30);
    const unclassified = printed
      .filter((c) => !(keyOf(c) in PLANS))
      .map((c) => `${c.page}:${c.line}: ${c.text}`);
    expect(unclassified, 'add a line to PLANS for each').toEqual([]);
    const stale = Object.keys(PLANS).filter((k) => !printed.some((c) => keyOf(c) === k));
    expect(stale, 'no longer printed: remove from PLANS').toEqual([]);
  });

  it('name only flags their command accepts (runnable here or not)', () => {
    const wrong = printed.flatMap((c) =>
      unknownFlags(c.text).map((f) => `${c.page}:${c.line}: ${f} in ${c.text}`),
    );
    expect(wrong).toEqual([]);
  });

  it('the flag check fires on a flag a command does not have', () => {
    expect(unknownFlags('pgperf run --arm a=/x --cleints 1,8')).toEqual(['pgperf run has no --cleints']);
    expect(unknownFlags('pgperf store list --json # --not-a-flag in a comment')).toEqual([]);
    expect(unknownFlags('pgperf store export X --out b.json && pgperf compare b.json --jsn')).toEqual([
      'pgperf compare has no --jsn',
    ]);
  });
});

/** The flags a printed command line names that its pgperf (sub)command does not accept. */
function unknownFlags(text: string): string[] {
  const code = text.replace(/\s#\s.*$/, '');
  return code.split(/&&|\|\||;/).flatMap((part) => {
    const words = part.trim().split(/\s+/);
    const at = words.indexOf('pgperf');
    if (at < 0) return [];
    let command: Command | undefined;
    let name = 'pgperf';
    for (const word of words.slice(at + 1)) {
      const sub = (command ? command.commands : commands.map((make) => make())).find(
        (c) => c.name() === word || c.aliases().includes(word),
      );
      if (!sub) break;
      command = sub;
      name += ` ${word}`;
    }
    const accepted = new Set(['--help', ...(command ? optionsOf(command) : ['--version'])]);
    const flags = [...part.matchAll(/(?:^|[\s[|])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
    return [...new Set(flags)].filter((f) => !accepted.has(f)).map((f) => `${name} has no ${f}`);
  });
}

/** The long options of a command and of its subcommands (`store` takes its subcommands' flags). */
function optionsOf(command: Command): string[] {
  return [
    ...(command.options as Option[]).map((o) => o.long).filter((l): l is string => l !== undefined),
    ...command.commands.flatMap(optionsOf),
  ];
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `script` run by bash in `cwd` with `env`, as a user's shell runs it. */
function sh(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('run here, with pgperf on the PATH as the quick start leaves it', () => {
  const tmp = useTmpDir('pgperf-it-docs-', { killLeftovers: true });
  const binDir = installedBinDir();
  let env: NodeJS.ProcessEnv;
  let work: string;
  let results: string;
  let storedId: string;

  beforeAll(async () => {
    const bin = path.join(tmp(), 'bin');
    const { PGPERF_STORE: _store, PGPERF_DOCS_CLI: cli, ...inherited } = process.env;
    const link = await sh('bash scripts/link-cli.sh', REPO_ROOT, {
      ...inherited,
      PGPERF_BIN_DIR: bin,
      ...(cli ? { PGPERF_CLI: cli } : {}),
    });
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout).toContain(`setup: pgperf: linked ${bin}/pgperf -> `);
    env = {
      ...inherited,
      PATH: `${bin}:${inherited.PATH ?? '/usr/bin:/bin'}`,
      HOME: path.join(tmp(), 'home'),
      XDG_DATA_HOME: '',
      // pgperf's default --tmp-dir is the OS temp dir: the clusters of the commands land in this test's.
      TMPDIR: tmp(),
    };
    work = path.join(tmp(), 'work');
    await mkdir(work);
    await symlink(path.join(REPO_ROOT, 'workloads'), path.join(work, 'workloads'));

    // The run the commands read, saved to the default store as the quick start's demo is.
    const run = await sh(
      `pgperf run --arm base=${binDir} --arm head=${binDir} --set base:commit_delay=10000 --set base:commit_siblings=0 ` +
        '--workload smoke --clients 1 --rounds 5 --duration 1 --threshold 10 --seed 3',
      work,
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/^PASSED: .*improvement/);
    const [runDir] = await readdir(path.join(work, 'pgperf-results'));
    results = path.join(work, 'pgperf-results', runDir!, 'results.json');
    const doc = JSON.parse(await readFile(results, 'utf8')) as { plan: { cells: unknown[] } };
    expect(doc.plan.cells).toEqual([{ workload: 'smoke', clients: 1 }]);
    storedId = /saved to the store .* as (\S+)/.exec(run.stdout)![1]!;

    // The files the printed commands name, in the working directory.
    for (const name of [RESULTS, 'base.json', 'head.json']) await copyFile(results, path.join(work, name));
    for (const dir of ['base-run', 'head-run', 'monday/run-1', 'tuesday/run-1']) {
      await mkdir(path.join(work, dir), { recursive: true });
      await copyFile(results, path.join(work, dir, 'results.json'));
    }
    await writeFile(path.join(work, 'base.txt'), '1000\n1010\n990\n1005\n995\n1002\n998\n');
    await writeFile(path.join(work, 'head.txt'), '950\n960\n940\n955\n945\n952\n948\n');
    const series = Array.from({ length: 24 }, (_, i) => (i < 12 ? 1000 : 900) + (i % 3) * 4);
    await writeFile(path.join(work, 'nightly-tps.txt'), `${series.join('\n')}\n`);
  });

  // A comparison of arms that differ counts instructions first by default (a minute or two under cachegrind).
  const COMPARISON_TIMEOUT_MS = 600_000;
  const runnable = Object.entries(PLANS).flatMap(([key, plan]) =>
    'runs' in plan ? plan.runs.map((run) => ({ key, run, codes: plan.codes ?? [0] })) : [],
  );

  it.each(runnable)(
    '$key: $run',
    async ({ key, run, codes }) => {
      const printedText = key.slice(key.indexOf(': ') + 2);
      const script = (run === AS_PRINTED ? printedText : run).replaceAll(ID, storedId);
      const ran = await sh(script, work, env);
      expect(codes, `exit ${ran.code}\n${ran.stderr}`).toContain(ran.code);
      expect(ran.stderr).not.toMatch(/command not found|internal error/);
      expect(ran.stdout.length + ran.stderr.length).toBeGreaterThan(0);
    },
    COMPARISON_TIMEOUT_MS,
  );

  it(
    "the Reproduce block of the run's report runs as printed and reproduces its verdict",
    async () => {
      const report = await sh(`pgperf compare ${RESULTS} --format markdown`, work, env);
      expect(report.code, report.stderr).toBe(0);
      const lines = report.stdout.split('\n');
      const summary = lines.findIndex((l) =>
        l.startsWith('<details><summary>Reproduce smoke at 1 client(s)'),
      );
      expect(summary, report.stdout).toBeGreaterThan(0);
      const open = lines.findIndex((l, i) => i > summary && /^`{3,}sh$/.test(l));
      const fence = lines[open]!.replace('sh', '');
      const close = lines.findIndex((l, i) => i > open && l === fence);
      const script = lines.slice(open + 1, close).join('\n');
      expect(script).toMatch(/^pgperf run \\$/m);

      const elsewhere = path.join(tmp(), 'reproduce');
      await mkdir(elsewhere);
      const ran = await sh(script, elsewhere, env);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout.split('\n')[0]).toMatch(/^PASSED: .*improvement/);
      expect(ran.stdout).toMatch(/^\s+1\s+5\/5 .* improvement/m);
      expect(await readdir(path.join(elsewhere, 'pgperf-results'))).toHaveLength(1);
      expect(processesMentioning(tmp())).toEqual([]);
    },
    COMPARISON_TIMEOUT_MS,
  );
});
