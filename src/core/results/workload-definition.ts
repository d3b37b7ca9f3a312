/**
 * A workload's definition, as far as it decides what one timed run measures: two runs whose definitions
 * hash alike measured the same thing, whatever the workload was called, how many rounds or client counts
 * were run and how the result was judged. A workload whose script, scale, duration or settings changed under
 * the same name is another definition: its runs are no history of the new one (a noise floor learned from
 * them, src/flows/compare/noise/noise-floors.ts, would be another workload's noise).
 */
import { canonicalJson } from '../util/canonical-json.js';
import { stableHash } from '../util/stable-hash.js';

/**
 * Fields of a resolved workload (results `workloads[name]`) that change nothing one timed run measures:
 * its name and description, how many rounds and which client counts (each cell is its own series), how it
 * is judged (threshold, maxIgnoredErrorsPct) and retried, and the counted evidence gathered on servers of
 * its own beside the timed rounds (instructions, plans).
 */
export const DEFINITION_IGNORED = [
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

/**
 * The hash (16 hex digits, stableHash) of the canonical JSON (keys sorted, undefined members dropped) of
 * a resolved workload definition as a results document records it, without DEFINITION_IGNORED: the tool
 * and its fields (builtin or the scripts' resolved paths and weights, query mode, scale, init steps, sysbench
 * script and tables), duration, warm-up, settings, metrics, pinning, cold starts, everything else. A
 * custom script is named by its path: an edit inside the file under the same path is not seen. Not a
 * cryptographic digest: it tells definitions apart, it authenticates nothing.
 *
 * @example workloadDefinitionHash({ name: 'ro', tool: 'pgbench', builtin: 'select-only', duration: 30 })
 */
export function workloadDefinitionHash(definition: unknown): string {
  return stableHash(canonicalJson(measuredDefinition(definition)));
}

/** The definition without DEFINITION_IGNORED (anything but an object is kept as it is). */
function measuredDefinition(definition: unknown): unknown {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) return definition;
  const ignored: readonly string[] = DEFINITION_IGNORED;
  return Object.fromEntries(Object.entries(definition).filter(([k]) => !ignored.includes(k)));
}
