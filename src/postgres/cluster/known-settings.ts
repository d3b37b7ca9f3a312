/**
 * Which server settings an arm's PostgreSQL knows, read from its binary without a server or a data
 * directory, so that a setting an arm's major version lacks (io_method, 18+, given to a PostgreSQL 15 arm)
 * is refused before anything starts: no initdb, no data load, no server of another arm started first.
 *
 * `postgres --describe-config` prints one tab-separated line per setting: name, context, group, type,
 * default, min, max, short and long description (src/backend/utils/misc/help_config.c). It leaves out
 * the settings flagged GUC_NO_SHOW_ALL, GUC_NOT_IN_SAMPLE or GUC_DISALLOW_IN_FILE: application_name,
 * debug_parallel_query, jit_expressions, zero_damaged_pages and about 45 more in 15.18 and 18.6 (compared
 * with pg_settings of a running server). A name it does not print is therefore refused only when the
 * postgres binary does not hold it as a string either (a core setting's name is a string literal of
 * guc_tables.c in that binary); when the binary is not ELF (a wrapper script), such a name is left to the
 * server. A name with a dot (pg_stat_statements.track) belongs to an extension, which the server takes as a
 * placeholder: never refused here.
 *
 * Both run as the run-as user when pgperf is root (install-runner.ts): the binary is the code under test.
 *
 * What an install knows is cached per postgres binary (path, size, modification time) for the process:
 * the sentinel and head-only parts of a stored-baseline run, or a bisection's steps, ask once per binary.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { SETTING_NAME } from '../../core/results/settings.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import type { Logger } from '../../core/util/logger.js';
import { describeExit, probeOptions } from '../../machine/os/process.js';
import { inspectBinDir } from './cluster.js';
import { installRunner, type InstallDeps } from './install-runner.js';

/** Who runs the install's programs (install-runner.ts), and the log for a --describe-config that fails. */
type SettingsDeps = InstallDeps & { logger: Logger };

/** One line of `postgres --describe-config`. */
export interface DescribedSetting {
  /** As PostgreSQL spells it (DateStyle, TimeZone); compared in lower case. */
  name: string;
  /** When it can be changed: postmaster, sighup, superuser, user, ... */
  context: string;
  /** Its group in postgresql.conf.sample, e.g. "Resource Usage / I/O". */
  group: string;
  /** BOOLEAN, ENUM, INTEGER, REAL or STRING. */
  type: string;
}

/**
 * The settings `postgres --describe-config` printed, by lower-case name. Throws (a bug or a format this
 * parser does not know) on a line that is not NAME<TAB>CONTEXT<TAB>GROUP<TAB>TYPE<TAB>..., or on no line.
 *
 * @example parseDescribeConfig('io_method\tpostmaster\tResource Usage / I/O\tENUM\tworker\t\t\t...\t\n')
 *   .get('io_method') // { name: 'io_method', context: 'postmaster', group: 'Resource Usage / I/O', type: 'ENUM' }
 */
export function parseDescribeConfig(text: string): Map<string, DescribedSetting> {
  const settings = new Map<string, DescribedSetting>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const [name, context, group, type] = line.split('\t');
    if (name === undefined || !SETTING_NAME.test(name) || type === undefined) {
      throw new Error(
        `postgres --describe-config, line ${i + 1}: expected NAME<TAB>CONTEXT<TAB>GROUP<TAB>TYPE..., got ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    settings.set(name.toLowerCase(), { name, context: context!, group: group!, type });
  }
  if (settings.size === 0) throw new Error('postgres --describe-config printed no settings');
  return settings;
}

/** What one install's server knows, as far as its binary tells. */
interface InstallSettings {
  /** "PostgreSQL 15.18", from `postgres --version`. */
  version: string;
  /** Undefined when `--describe-config` failed: then nothing is refused for this install. */
  described?: Map<string, DescribedSetting>;
  /** Whether the binary holds a name --describe-config did not print (filled as names are asked). */
  inBinary: Map<string, boolean>;
  postgres: string;
}

const installs = new Map<string, Promise<InstallSettings>>();

/** The install's settings, read once per postgres binary (path, size, modification time) and process. */
async function installSettings(binDir: string, what: string, deps: SettingsDeps): Promise<InstallSettings> {
  const postgres = path.resolve(binDir, 'postgres');
  const st = await stat(postgres).catch(() => undefined);
  // No binary: inspectBinDir says so, naming the arm; nothing to cache.
  if (!st) return readInstallSettings(binDir, postgres, what, deps);
  const key = `${postgres}\0${st.size}\0${st.mtimeMs}`;
  let entry = installs.get(key);
  if (!entry) {
    entry = readInstallSettings(binDir, postgres, what, deps);
    installs.set(key, entry);
    entry.catch(() => installs.delete(key));
  }
  return entry;
}

async function readInstallSettings(
  binDir: string,
  postgres: string,
  what: string,
  deps: SettingsDeps,
): Promise<InstallSettings> {
  const { text } = await inspectBinDir(binDir, what, deps);
  const version = /\(PostgreSQL\)\s+(\S+)/.exec(text);
  const install: InstallSettings = {
    version: version ? `PostgreSQL ${version[1]}` : text,
    inBinary: new Map(),
    postgres,
  };
  const res = await installRunner(deps).run(postgres, ['--describe-config'], probeOptions(deps.signal));
  deps.signal?.throwIfAborted();
  try {
    if (res.exitCode !== 0) throw new Error(describeExit(res));
    install.described = parseDescribeConfig(res.stdout);
  } catch (e) {
    deps.logger.warn(
      `${what}: cannot tell which settings ${install.version} knows (${postgres} --describe-config: ${errorMessage(e)}); its server says so at start instead`,
    );
  }
  return install;
}

/** ELF's magic number: a binary whose string literals can be searched. */
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/**
 * Whether the install's server knows each name (lower case, no dot): false only when --describe-config
 * does not print it and the binary does not hold it as a NUL-terminated string.
 */
async function knows(install: InstallSettings, names: readonly string[]): Promise<Map<string, boolean>> {
  const described = install.described;
  const answers = new Map<string, boolean>();
  const hidden: string[] = [];
  for (const name of names) {
    if (!described || described.has(name)) answers.set(name, true);
    else if (install.inBinary.has(name)) answers.set(name, install.inBinary.get(name)!);
    else hidden.push(name);
  }
  if (hidden.length === 0) return answers;
  // Read once for every name asked now, then let go: a bisection holds many installs.
  const binary = await readFile(install.postgres).catch(() => undefined);
  const searchable = binary !== undefined && binary.subarray(0, 4).equals(ELF_MAGIC);
  for (const name of hidden) {
    const found = !searchable || binary.includes(Buffer.from(`${name}\0`, 'latin1'));
    install.inBinary.set(name, found);
    answers.set(name, found);
  }
  return answers;
}

/** An arm as the check needs it: its label, bin dir and own settings (--set). */
export interface ArmSettings {
  label: string;
  binDir: string;
  settings: Readonly<Record<string, string>>;
}

/** A workload as the check needs it: its name and the settings it gives every arm. */
export interface WorkloadSettings {
  name: string;
  settings: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Refuses, with one UserError naming each, the settings (the workloads', given to every arm, and each
 * arm's own) that an arm's server does not know: the setting, where it was given, the arm and its version,
 * which arms know it, and what to do. Runs no process when no setting is given (the usual run); otherwise
 * `postgres --version` and `--describe-config` once per binary.
 */
export async function refuseUnknownSettings(
  arms: readonly ArmSettings[],
  workloads: readonly WorkloadSettings[],
  deps: SettingsDeps,
): Promise<void> {
  const core = (names: readonly string[]) => names.filter((name) => !name.includes('.'));
  const given = [
    ...workloads.flatMap((w) =>
      core(Object.keys(w.settings)).map((name) => ({ name, where: `workload ${w.name}, settings`, arms })),
    ),
    ...arms.flatMap((arm) =>
      core(Object.keys(arm.settings)).map((name) => ({
        name,
        where: `settings of arm '${arm.label}'`,
        arms: [arm],
      })),
    ),
  ];
  if (given.length === 0) return;
  // Every arm is asked about every name, so that a refusal can say which arms know it.
  const names = [...new Set(given.map((s) => s.name.toLowerCase()))];
  const known = await Promise.all(
    arms.map(async (arm) => {
      const install = await installSettings(arm.binDir, `arm ${arm.label}`, deps);
      return { arm, install, answers: await knows(install, names) };
    }),
  );
  const arm = (k: (typeof known)[number]) => ({ label: k.arm.label, version: k.install.version });
  const problems: string[] = [];
  for (const { name, where, arms: to } of given) {
    const answer = (k: (typeof known)[number]) => k.answers.get(name.toLowerCase());
    const unknownTo = known.filter((k) => to.includes(k.arm) && answer(k) === false);
    if (unknownTo.length === 0) continue;
    const knownTo = known.filter((k) => answer(k) === true);
    problems.push(
      unknownSettingProblem({ name, where, unknownTo: unknownTo.map(arm), knownTo: knownTo.map(arm) }),
    );
  }
  if (problems.length === 1) throw new UserError(problems[0]!);
  if (problems.length > 1) {
    throw new UserError(
      `${problems.length} settings are not known to an arm's PostgreSQL:\n  ${problems.join('\n  ')}`,
    );
  }
}

/** An arm in a refusal: its label and "PostgreSQL 15.18". */
interface ArmVersion {
  label: string;
  version: string;
}

/**
 * One refusal: "setting 'io_method' (workload ro, settings) is not known to arm 'base' (PostgreSQL 15.18):
 * arm 'head' (PostgreSQL 18.6) knows it; remove it or give it only to the arms that know it" (or, when no
 * arm knows it, to check its spelling).
 */
export function unknownSettingProblem(p: {
  name: string;
  /** Where it was given: "workload ro, settings" or "settings of arm 'base'". */
  where: string;
  unknownTo: readonly ArmVersion[];
  knownTo: readonly ArmVersion[];
}): string {
  const described = (a: ArmVersion) => `arm '${a.label}' (${a.version})`;
  const tail =
    p.knownTo.length > 0
      ? `${p.knownTo.map(described).join(' and ')} ${p.knownTo.length === 1 ? 'knows' : 'know'} it; remove it or give it only to the arms that know it`
      : 'no arm of this run knows it; check its spelling (`postgres --describe-config` lists the settings a server knows)';
  return `setting '${p.name}' (${p.where}) is not known to ${p.unknownTo.map(described).join(' or ')}: ${tail}`;
}
