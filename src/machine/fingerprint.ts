/**
 * The environment fingerprint: a canonical hash of the facts that make two runs' measurements
 * comparable (machine class, kernel, CPU power management, how the servers were compiled, the
 * postgresql.conf, the client tools, the runner label). Two runs with the same fingerprint id were
 * measured under the same conditions as far as pgperf can tell; series are never mixed across ids
 * without saying so, and `diffFingerprints` names what differs.
 *
 * Deliberately left out: the hostname (a re-imaged or replaced runner of the same class measures
 * alike and keeps its series), the load average (a symptom of the moment, not a property of the
 * machine), the node version and paths (they do not change what the server does).
 */
import { createHash } from 'node:crypto';
import type { ArmInfo, Environment, RunResult } from '../core/results/result-types.js';
import type { Fingerprint } from '../core/results/result-types.js';
import { canonicalJson } from '../core/util/canonical-json.js';
export type { Fingerprint };
export { canonicalJson };

/**
 * What the fingerprint reads of a results document: also the conditions of a run not yet measured, or of
 * one arm alone (a stored baseline compares the arm it uses, not every arm of that run).
 */
export type FingerprintSource = Pick<RunResult, 'environment' | 'clients'> & {
  arms: ReadonlyArray<Pick<ArmInfo, 'build'>>;
};

/** Length of a fingerprint id in hex characters (64 bits: collisions are not a practical concern). */
export const FINGERPRINT_ID_LENGTH = 16;

/** Machine facts from `environment.facts` that change results, when the machine exposes them. */
const OPTIONAL_FACTS: ReadonlyArray<[fact: string, key: string]> = [
  ['smt', 'smtControl'],
  ['governor', 'governor'],
  ['cpuidleDriver', 'cpuidleDriver'],
  ['runnerLabel', 'runnerLabel'],
];

/**
 * The fingerprint of a results document. Build facts are the set over the arms that pgperf built
 * (arms[].build records): one value when every arm was compiled alike, else every distinct value, sorted
 * and joined with " | ", so a run whose arms differ in compiler or options has its own fingerprint.
 * Arms given as installed bin directories have no build record and add no build facts.
 *
 * @example environmentFingerprint(result).id // "3f9a0c1b2d4e5f60"
 */
export function environmentFingerprint(result: FingerprintSource): Fingerprint {
  const env = result.environment;
  const facts: Record<string, string> = { ...machineFacts(env), settingsHash: env.settingsHash };
  const builds = result.arms
    .map((a) => a.build as Record<string, unknown> | undefined)
    .filter((b): b is Record<string, unknown> => isObject(b));
  const compilers = distinct(
    builds.map((b) => (isObject(b.compiler) ? stringOf(b.compiler.version) : undefined)),
  );
  if (compilers) facts.compiler = compilers;
  const options = distinct(
    builds.map((b) => (Array.isArray(b.options) ? b.options.map(String).join(' ') : undefined)),
  );
  if (options !== undefined) facts.buildOptions = options;
  const buildSystems = distinct(builds.map((b) => stringOf(b.buildSystem)));
  if (buildSystems) facts.buildSystem = buildSystems;
  for (const client of result.clients ?? []) facts[`client.${client.tool}`] = client.version;
  // Controls held over the run change what it measures (C-states, clock): their own fact, absent without.
  const controls = env.controls ?? [];
  if (controls.length > 0) {
    facts.controls = [...new Set(controls.map((c) => `${c.control}=${c.to}`))].sort().join(' ');
  }
  return { id: fingerprintId(facts), facts };
}

/**
 * The facts of the machine alone (the fingerprint without what a run chooses: settings, builds, client
 * tools, controls): what the runner's noise is a property of (src/flows/compare/noise/runner-noise.ts).
 */
export function machineFacts(env: Environment): Record<string, string> {
  const facts: Record<string, string> = {
    cpuModel: env.cpuModel,
    cpuCount: String(env.cpuCount),
    memoryGiB: String(Math.round(env.memoryBytes / 1024 ** 3)),
    kernel: env.kernel,
    os: env.os,
    arch: env.arch,
  };
  for (const [fact, key] of OPTIONAL_FACTS) {
    const value = env.facts?.[key];
    if (value !== undefined && value !== '') facts[fact] = value;
  }
  return facts;
}

/** The id of a set of facts: sha256 of their canonical JSON, first 16 hex characters. */
export function fingerprintId(facts: Record<string, string>): string {
  return sha256Hex(canonicalJson(facts)).slice(0, FINGERPRINT_ID_LENGTH);
}

/**
 * Fields of a resolved workload that do not change what one measured run measures, left out of the
 * workload hash: how many rounds are run (more samples of the same measurement), the practical
 * threshold and the failure tolerance (how results are judged, not produced), the retry count, the
 * client list (each cell carries its own client count, so adding a client level keeps the other
 * cells' series), and the name and description (renaming a workload does not change it).
 * Everything else stays in, including the warm-up length, the duration, the scale and the settings.
 */
export const WORKLOAD_HASH_IGNORED = [
  'name',
  'description',
  'rounds',
  'threshold',
  'retries',
  'clients',
  'maxIgnoredErrorsPct',
] as const;

/**
 * Hash (16 hex characters) of a resolved workload definition (as stored in results `workloads[name]`),
 * minus WORKLOAD_HASH_IGNORED. Canonical: key order does not matter.
 */
export function workloadHash(spec: unknown): string {
  const relevant: unknown = isObject(spec)
    ? Object.fromEntries(
        Object.entries(spec).filter(([k]) => !(WORKLOAD_HASH_IGNORED as readonly string[]).includes(k)),
      )
    : spec;
  return sha256Hex(canonicalJson(relevant)).slice(0, FINGERPRINT_ID_LENGTH);
}

export interface FactDifference {
  fact: string;
  /** The value in the first fingerprint; undefined when it lacks the fact. */
  a: string | undefined;
  b: string | undefined;
}

/** The facts whose values differ (including facts present on one side only), sorted by name. */
export function diffFingerprints(a: Fingerprint, b: Fingerprint): FactDifference[] {
  const names = [...new Set([...Object.keys(a.facts), ...Object.keys(b.facts)])].sort();
  return names
    .filter((fact) => a.facts[fact] !== b.facts[fact])
    .map((fact) => ({ fact, a: a.facts[fact], b: b.facts[fact] }));
}

function distinct(values: Array<string | undefined>): string | undefined {
  const set = [...new Set(values.filter((v): v is string => v !== undefined))].sort();
  return set.length ? set.join(' | ') : undefined;
}

function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
