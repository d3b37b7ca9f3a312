/**
 * What differs between a stored arm's conditions and head's, one difference per fact, setting, workload
 * field or missing cell, and how it is said: in a refusal, a warning, and results.json's
 * baseline.fingerprintMismatch. Empty means the stored samples compare with head's.
 */
import { workloadSchema } from '../../../drivers/workload.js';
import { WORKLOAD_HASH_IGNORED, canonicalJson } from '../../../machine/fingerprint.js';
import type { ArmConditions } from './baseline-conditions.js';

/** One thing that differs between a stored arm's conditions and head's now. */
export interface ConditionDifference {
  /**
   * environment: a fingerprint fact; setting: a postgresql.conf setting a workload or the arm chose;
   * workload: a field of the workload definition; cells: requested client counts without stored samples.
   */
  kind: 'environment' | 'setting' | 'workload' | 'cells';
  /** The fact, setting or field ("kernel", "shared_buffers", "duration"); "clients" for cells. */
  name: string;
  /** The workload concerned (settings, fields, cells). */
  workload?: string;
  /** The values, rendered; undefined when that side does not have it. */
  stored: string | undefined;
  now: string | undefined;
}

/**
 * What differs between a stored arm's conditions and head's (empty: its samples compare with head's).
 * Settings are those the workload and the arm chose (later wins), compared by name: what pgperf writes
 * itself is the same for one pgperf version, and max_connections follows the largest client count, like
 * the client list (left out of the workload comparison for the same reason; the sentinel would see it).
 */
export function conditionDifferences(stored: ArmConditions, now: ArmConditions): ConditionDifference[] {
  const out: ConditionDifference[] = [];
  for (const name of [...new Set([...Object.keys(stored.facts), ...Object.keys(now.facts)])].sort()) {
    if (stored.facts[name] !== now.facts[name]) {
      out.push({ kind: 'environment', name, stored: stored.facts[name], now: now.facts[name] });
    }
  }
  const storedCells = new Set(stored.cells);
  for (const [workload, nowSpec] of Object.entries(now.workloads)) {
    const storedSpec = normalized(stored.workloads[workload]);
    const spec = normalized(nowSpec) ?? {};
    if (storedSpec !== undefined) {
      for (const field of fieldsCompared(storedSpec, spec)) {
        const [a, b] = [storedSpec[field], spec[field]];
        if (canonicalJson(a) !== canonicalJson(b)) {
          out.push({ kind: 'workload', workload, name: field, stored: shown(a), now: shown(b) });
        }
      }
      // Known on both sides only: a run recorded before the texts were says nothing of them.
      const [storedText, nowText] = [stored.scripts[workload], now.scripts[workload]];
      if (storedText !== undefined && nowText !== undefined && storedText !== nowText) {
        out.push({ kind: 'workload', workload, name: 'script text', stored: storedText, now: nowText });
      }
      const before = { ...settingsOf(storedSpec), ...stored.armSettings };
      const after = { ...settingsOf(spec), ...now.armSettings };
      for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
        if (before[name] !== after[name]) {
          out.push({ kind: 'setting', workload, name, stored: before[name], now: after[name] });
        }
      }
    }
    const requested = now.cells.filter((c) => c.startsWith(`${workload}@`));
    if (requested.some((c) => !storedCells.has(c))) {
      const clientsOf = (cells: Iterable<string>) =>
        `[${[...cells]
          .filter((c) => c.startsWith(`${workload}@`))
          .map((c) => Number(c.slice(workload.length + 1)))
          .sort((x, y) => x - y)
          .join(',')}]`;
      out.push({
        kind: 'cells',
        workload,
        name: 'clients',
        stored: clientsOf(storedCells),
        now: clientsOf(requested),
      });
    }
  }
  return out;
}

/** A workload definition with the schema's defaults (a document written before a field existed has none). */
function normalized(spec: unknown): Record<string, unknown> | undefined {
  const parsed = workloadSchema.safeParse(spec);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  return isRecord(spec) ? spec : undefined;
}

/** The fields that change what a measured run measures (fingerprint.ts WORKLOAD_HASH_IGNORED), settings aside. */
function fieldsCompared(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const ignored: readonly string[] = [...WORKLOAD_HASH_IGNORED, 'settings'];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !ignored.includes(k)).sort();
}

function settingsOf(spec: Record<string, unknown>): Record<string, string> {
  const settings = isRecord(spec.settings) ? spec.settings : {};
  return Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, String(v)]));
}

function shown(v: unknown): string | undefined {
  return v === undefined ? undefined : canonicalJson(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function differenceKey(d: ConditionDifference): string {
  return canonicalJson([d.kind, d.workload, d.name, d.stored, d.now]);
}

/** How results.json's baseline.fingerprintMismatch names a difference. */
export function differenceName(d: ConditionDifference): string {
  return d.kind === 'workload' ? `${d.workload}.${d.name}` : d.name;
}

/**
 * The differences in one line, settings first named once when every workload shares them, e.g.
 * "settings differ: shared_buffers: stored '128MB', now '1GB'; workload select-only: clients stored [1,2], now [1,4]".
 * `workloads`: the requested workloads.
 */
export function describeDifferences(diffs: ConditionDifference[], workloads: string[]): string {
  const quoted = (v: string | undefined, absent: string) => (v === undefined ? absent : `'${v}'`);
  const parts: string[] = [];
  const facts = diffs.filter((d) => d.kind === 'environment');
  if (facts.length > 0) {
    const list = facts.map(
      (d) => `${d.name}: stored ${quoted(d.stored, '(absent)')}, now ${quoted(d.now, '(absent)')}`,
    );
    parts.push(`environment differs: ${list.join('; ')}`);
  }
  const settings = new Map<string, { d: ConditionDifference; workloads: string[] }>();
  for (const d of diffs.filter((x) => x.kind === 'setting')) {
    const key = canonicalJson([d.name, d.stored, d.now]);
    const entry = settings.get(key) ?? { d, workloads: [] };
    entry.workloads.push(d.workload!);
    settings.set(key, entry);
  }
  if (settings.size > 0) {
    const list = [...settings.values()].map(({ d, workloads: ws }) => {
      const where = ws.length === workloads.length ? '' : ` (workload ${ws.join(', ')})`;
      const unset = "(not set: pgperf's default)";
      return `${d.name}${where}: stored ${quoted(d.stored, unset)}, now ${quoted(d.now, unset)}`;
    });
    parts.push(`settings differ: ${list.join('; ')}`);
  }
  for (const d of diffs.filter((x) => x.kind === 'workload' || x.kind === 'cells')) {
    parts.push(
      `workload ${d.workload}: ${d.name} stored ${d.stored ?? '(absent)'}, now ${d.now ?? '(absent)'}`,
    );
  }
  return parts.join('; ');
}
