/**
 * What a workload measures, as one value: the definition a results document records for it (tool,
 * script, scale, query mode, duration, settings, ...), without what does not change one measured run, with
 * the settings the measured arm added (`--set`) over the workload's own, and the text of its script files
 * (recorded apart, `workloadScripts`: the definition names a file, and a file edited under its name
 * measures something else). Two runs of a workload of one name whose definitions differ measured different
 * things: `pgperf compare` refuses them (src/flows/compare/two-runs.ts), and a history never compares
 * across the change (src/core/history/series.ts splits a series into segments there).
 */
import { canonicalJson } from '../util/canonical-json.js';
import { stableHash } from '../util/stable-hash.js';

/**
 * Fields of a resolved workload that do not change what one measured run measures, left out of the
 * workload hash and of a definition: how many rounds are run (more samples of the same measurement), the
 * practical threshold and the failure tolerance (how results are judged, not produced), the retry count,
 * the client list (each cell carries its own client count, so adding a client level keeps the other
 * cells' series), the name and description (renaming a workload does not change it), and the counted
 * evidence gathered on servers of its own beside the timed rounds (instructions, plans).
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
  'instructions',
  'plans',
] as const;

/** Characters of a definition id as the reports show it (like a short commit). */
export const DEFINITION_ID_LENGTH = 10;

/**
 * A recorded workload definition as compared: WORKLOAD_HASH_IGNORED left out, the arm's settings over the
 * workload's (later wins, every value a string, as postgresql.conf takes it), and each script file by its
 * base name (the path is the checkout's, which differs between runners; the text is `workloadScripts`').
 */
export function comparedDefinition(spec: unknown, armSettings: Readonly<Record<string, string>>): unknown {
  if (!isRecord(spec)) return spec;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) {
    if (!(WORKLOAD_HASH_IGNORED as readonly string[]).includes(k)) out[k] = v;
  }
  const settings = {
    ...Object.fromEntries(
      Object.entries(isRecord(spec.settings) ? spec.settings : {}).map(([k, v]) => [k, String(v)]),
    ),
    ...armSettings,
  };
  out.settings = settings;
  if (Array.isArray(spec.scripts)) {
    out.scripts = spec.scripts.map((s: unknown) =>
      isRecord(s) && typeof s.file === 'string' ? { ...s, file: s.file.split(/[\\/]/).pop() } : s,
    );
  }
  return out;
}

/** The hash of a compared definition (comparedDefinition). */
export function definitionHash(spec: unknown, armSettings: Readonly<Record<string, string>>): string {
  return stableHash(canonicalJson(comparedDefinition(spec, armSettings)));
}

/**
 * The hash (16 hex digits) of a workload definition as a results document records it, with no arm's own
 * settings: what a learned noise floor's runs must share with the comparison it is applied to
 * (src/flows/compare/noise/noise-floors.ts). A script is named by its base name here; its text is
 * `workloadScripts`', which a history compares too (definitionId). Not a cryptographic digest.
 */
export function workloadDefinitionHash(definition: unknown): string {
  return definitionHash(definition, {});
}

/** The hash of a workload's script texts, in the order the workload lists its files (`workloadScripts`). */
export function scriptTextsHash(texts: readonly string[]): string {
  return stableHash(canonicalJson(texts));
}

/** The id a report shows of a definition: its compared definition's hash and its scripts' texts' hash. */
export function definitionId(specHash: string, scriptsHash: string | undefined): string {
  return stableHash(`${specHash}\n${scriptsHash ?? ''}`).slice(0, DEFINITION_ID_LENGTH);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
