/**
 * Reads workload files: YAML -> validated, typed Workload with defaults applied and script paths
 * resolved. Every problem is reported with the file, line, field, bad value and what is expected,
 * before anything starts.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { FileReadError, fileKind, readRegularFile } from '../machine/os/regular-file.js';
import { confinedPath } from './confine-path.js';
import { LineCounter, parseDocument, isMap, isPair, isScalar, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { UserError } from '../core/util/errors.js';
import { plainText } from '../core/util/plain-text.js';
import { resolveWorkloadFile, type WorkloadLookup } from './shipped-workloads.js';
import { WORKLOAD_VARIANTS, workloadSchema, type Workload } from './workload.js';
import { expandMatrix } from './common/settings-matrix.js';

/**
 * A workload by reference, as both adapters accept it: the path of a workload file, or the name of a
 * workload shipped with pgperf (select-only); see resolveWorkloadFile. For a command that measures one
 * workload: a file with a `matrix` is refused (loadWorkloads takes it).
 */
export async function loadWorkload(ref: string, lookup: WorkloadLookup): Promise<Workload> {
  return loadWorkloadFile(resolveWorkloadFile(ref, lookup));
}

/**
 * The workloads of a reference (see loadWorkload): the file's workload, or, when it has a `matrix`, one
 * workload per combination of the matrix's values (src/drivers/common/settings-matrix.ts).
 */
export async function loadWorkloads(ref: string, lookup: WorkloadLookup): Promise<Workload[]> {
  return loadWorkloadsFromFile(resolveWorkloadFile(ref, lookup));
}

/**
 * The largest workload file read, in bytes: the shipped ones are under 2 kB; a file this large is not a
 * workload (and a device such as /dev/zero, or a FIFO, would be read forever: only regular files are read).
 */
export const MAX_WORKLOAD_FILE_BYTES = 1024 * 1024;

/** The workload of a file; a file with a `matrix` is refused (loadWorkloadsFromFile takes it). */
export async function loadWorkloadFile(file: string): Promise<Workload> {
  return resolveScripts(parseWorkload(await readWorkloadText(file), file), file);
}

/** The workloads of a file: its workload, or one per combination of its `matrix`. */
export async function loadWorkloadsFromFile(file: string): Promise<Workload[]> {
  const text = await readWorkloadText(file);
  const { workload } = parseDocumentWorkload(text, file);
  return expandMatrix(await resolveScripts(workload, file));
}

async function readWorkloadText(file: string): Promise<string> {
  try {
    return await readRegularFile(file, {
      maxBytes: MAX_WORKLOAD_FILE_BYTES,
      expected: 'a YAML workload file',
    });
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    throw new UserError(`workload file ${file}: ${e.reason}`);
  }
}

/**
 * Alias resolutions (`*name`) a workload file may make. A workload needs few, if any (a shared settings
 * block); aliases of aliases grow exponentially (the "billion laughs"), so the yaml package's limit stops a
 * file from expanding into far more memory than its size. The package counts each use of an anchor times
 * the alias uses inside it: 100 uses of a plain anchor pass, nested aliases hit the limit within a few
 * levels. This is the package's default, said here rather than left implicit.
 */
const MAX_ALIAS_COUNT = 100;

/**
 * Validates workload YAML text of one workload; `source` names it in messages. Script paths stay as
 * written. A `matrix` is refused, naming the workloads it makes (parseWorkloads takes it).
 */
export function parseWorkload(text: string, source: string): Workload {
  const { workload, doc, lineCounter } = parseDocumentWorkload(text, source);
  if (workload.matrix === undefined) return workload;
  const names = expandMatrix(workload).map((w) => w.name);
  const listed = names.length > 3 ? `${names.slice(0, 3).join(', ')}, ...` : names.join(', ');
  throw new UserError(
    `${source}${locate(doc, lineCounter, ['matrix'], true)}: matrix: expected one workload here, and the matrix makes ${names.length} (${listed}): write the one to measure as a workload file without matrix, its values in settings`,
  );
}

/**
 * Validates workload YAML text; `source` names it in messages. Script paths stay as written. A workload
 * with a `matrix` is one workload per combination of its values (expandMatrix).
 */
export function parseWorkloads(text: string, source: string): Workload[] {
  return expandMatrix(parseDocumentWorkload(text, source).workload);
}

/** The validated workload of YAML text, `matrix` not yet expanded, with its document for locating fields. */
function parseDocumentWorkload(
  text: string,
  source: string,
): { workload: Workload; doc: Document; lineCounter: LineCounter } {
  const lineCounter = new LineCounter();
  // logLevel error: a warning (a mapping used as a key, an unknown tag) must not print a Node warning; what
  // the schema cannot take is refused by it, naming the field. uniqueKeys off: the package compares each
  // key with every key before it (50,000 settings took a minute); repeatedKey does it in linear time.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false, logLevel: 'error' });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const at = lineCounter.linePos(err.pos[0]);
    // The package's own words for a second document name its API; say what a workload file holds.
    const why =
      err.code === 'MULTIPLE_DOCS'
        ? 'a second document starts here (after "---"); a workload file holds one workload, one document'
        : err.message.split('\n')[0];
    throw new UserError(`${source}:${at.line}:${at.col}: invalid YAML: ${why}`);
  }
  const repeated = repeatedKey(doc);
  if (repeated) {
    const at = lineCounter.linePos(repeated.offset);
    throw new UserError(
      `${source}:${at.line}:${at.col}: invalid YAML: the key ${clipped(repeated.key)} is given twice in one mapping (keys must be unique; the first is on line ${lineCounter.linePos(repeated.firstOffset).line})`,
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    // Resolving aliases is where a parsed document can still fail: an alias with no anchor before it, or
    // more aliases than MAX_ALIAS_COUNT (an alias bomb). Both are the file's problem, not pgperf's.
    throw new UserError(`${source}: invalid YAML: ${aliasProblem(e)}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError(`${source}: expected a mapping of workload fields (name, tool, clients, ...)`);
  }
  const parsed = workloadSchema.safeParse(data);
  if (parsed.success) return { workload: parsed.data, doc, lineCounter };
  const { issues } = parsed.error;
  // The first problems, each with its field and value: a file of thousands of bad values is refused with a
  // few of them, not all (each is located in the document, so listing all would be slow too).
  const problems = issues
    .slice(0, MAX_LISTED_PROBLEMS)
    .map((issue) => describeIssue(issue, data, doc, lineCounter, source));
  if (problems.length === 1) throw new UserError(problems[0]!);
  const more = issues.length - problems.length;
  throw new UserError(
    `${source}: ${issues.length} problems${more > 0 ? ` (the first ${problems.length})` : ''}:\n  ${problems.join('\n  ')}${more > 0 ? `\n  ... and ${more} more` : ''}`,
  );
}

/** Problems of a workload file listed in its refusal; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 10;

/** The characters of a value a message quotes; a longer one is cut, and its size said. */
export const MAX_QUOTED_CHARS = 100;

/**
 * A value as a message quotes it: its JSON, cut to MAX_QUOTED_CHARS with its size said, so a refusal never
 * repeats a whole list or file ("got [\"0MB\",\"1MB\",…] (a list of 50000 values)").
 */
export function clipped(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  if (json.length <= MAX_QUOTED_CHARS) return json;
  const many = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const size = Array.isArray(value)
    ? `a list of ${many(value.length, 'value')}`
    : value !== null && typeof value === 'object'
      ? `a mapping of ${many(Object.keys(value).length, 'key')}`
      : many(json.length, 'character');
  return `${plainText(json, MAX_QUOTED_CHARS)} (${size})`;
}

/**
 * The first key given twice in one mapping of the document, with where it and its first use start; keys
 * compare as the workload reads them (`1` and `"1"` are one key). One pass, a Set per mapping.
 */
function repeatedKey(doc: Document): { key: string; offset: number; firstOffset: number } | undefined {
  let found: { key: string; offset: number; firstOffset: number } | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Map<string, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        const offset = pair.key.range?.[0] ?? 0;
        const first = seen.get(key);
        if (first !== undefined) {
          found = { key, offset, firstOffset: first };
          return visit.BREAK;
        }
        seen.set(key, offset);
      }
      return undefined;
    },
  });
  return found;
}

/** The yaml package's message for a document that cannot be resolved, in the loader's words. */
function aliasProblem(e: unknown): string {
  const message = e instanceof Error ? e.message.split('\n')[0]! : String(e);
  if (/excessive alias count/i.test(message)) {
    return `its aliases (*name) expand to more than ${MAX_ALIAS_COUNT} copies of anchored nodes (an alias bomb?): write the values out, or use fewer aliases`;
  }
  return message;
}

async function resolveScripts(workload: Workload, file: string): Promise<Workload> {
  if (workload.tool !== 'pgbench' || !workload.scripts) return workload;
  const dir = path.dirname(path.resolve(file));
  const scripts = [];
  for (const [i, script] of workload.scripts.entries()) {
    const confined = await confinedPath(dir, script.file);
    if ('refused' in confined) {
      throw new UserError(
        `${file}: scripts[${i}].file: script "${script.file}" refused: ${confined.refused}`,
      );
    }
    // pgbench, and the plan phases, read it: a FIFO or a device would keep them waiting for ever.
    const st = await stat(confined.path);
    if (!st.isFile()) {
      throw new UserError(
        `${file}: scripts[${i}].file: script "${script.file}" is ${fileKind(st)}, expected a regular file (a pgbench script)`,
      );
    }
    scripts.push({ ...script, file: confined.path });
  }
  return { ...workload, scripts };
}

function describeIssue(
  issue: z.core.$ZodIssue,
  data: unknown,
  doc: Document,
  lineCounter: LineCounter,
  source: string,
): string {
  const field = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const SHOWN = 5;
    const keys =
      issue.keys
        .slice(0, SHOWN)
        .map((k) => clipped(k))
        .join(', ') + (issue.keys.length > SHOWN ? ` and ${issue.keys.length - SHOWN} more` : '');
    const where = locate(doc, lineCounter, [...issue.path, issue.keys[0]!], true);
    const known = Object.keys(schemaShapeAt(variantSchema(data), issue.path)).join(', ');
    return `${source}${where}: ${field ? `${field}: ` : ''}unknown key ${keys} (expected one of: ${known})${otherToolHint(data, issue.path, issue.keys)}`;
  }
  const range = rangeIssueInUnion(issue);
  if (range) return describeIssue(range, data, doc, lineCounter, source);
  const where = locate(doc, lineCounter, issue.path, false);
  if (issue.code === 'invalid_key') {
    // A record's key (a setting name in settings or matrix): the key is the bad value, not what it maps to.
    const inner = issue.issues[0]?.message;
    const expected = inner && !inner.startsWith('Invalid') ? inner : 'a valid key';
    return `${source}${locate(doc, lineCounter, issue.path, true)}: ${field}: expected ${expected} as the key, got ${clipped(issue.path.at(-1))}`;
  }
  const value = valueAt(data, issue.path);
  if (issue.path.length === 0) return `${source}${where}: ${expectation(issue)}`;
  const got =
    value === undefined
      ? 'it is missing'
      : issue.code === 'too_big' && typeof value === 'string'
        ? `got ${value.length} characters (${JSON.stringify(value.slice(0, 24))}...)`
        : `got ${clipped(value)}`;
  return `${source}${where}: ${field}: ${expectation(issue)}, ${got}`;
}

/**
 * A union (threads: "auto" | "clients" | a number; instructions: a boolean or an object) whose value had the
 * form of one of its options but a number out of that option's range: that range issue, at its full path,
 * so the message names the field and the range rather than "one of the allowed forms".
 */
function rangeIssueInUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue | undefined {
  if (issue.code !== 'invalid_union' || !Array.isArray(issue.errors)) return undefined;
  const ranged = issue.errors.find(
    (errs) => errs.length > 0 && errs.every((e) => e.code === 'too_big' || e.code === 'too_small'),
  );
  const first = ranged?.[0];
  return first ? { ...first, path: [...issue.path, ...first.path] } : undefined;
}

/** What the field should be, in words. */
function expectation(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'too_small':
      if (issue.origin === 'array') return `expected at least ${issue.minimum} entries`;
      return `expected a number ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `expected at most ${issue.maximum} entries`;
      // A bounded size (boundedInt) says its whole range.
      if (issue.message.startsWith('expected ')) return issue.message;
      return `expected a number ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return `expected ${issue.message ?? issue.format}`;
    case 'invalid_union':
      // An unknown or missing `tool`: zod lists the discriminator values it knows.
      if ('options' in issue && Array.isArray(issue.options)) {
        return `expected one of ${issue.options.map((v) => JSON.stringify(v)).join(', ')}`;
      }
      // A union with its own message (e.g. cpus: "auto" or {server, client}) says what it expects.
      if (issue.message && !issue.message.startsWith('Invalid input')) return issue.message;
      return 'expected one of the allowed forms (see the JSON Schema)';
    default:
      return issue.message;
  }
}

/** `matrix.work_mem[3]`; a key longer than a setting name is cut (the file's own keys can be any length). */
function formatPath(p: readonly PropertyKey[]): string {
  return p.reduce<string>((acc, k) => {
    if (typeof k === 'number') return `${acc}[${k}]`;
    const key = plainText(String(k), MAX_KEY_CHARS);
    return acc ? `${acc}.${key}` : key;
  }, '');
}

/** The characters of a key a field path shows (PostgreSQL's setting names stop at 63). */
const MAX_KEY_CHARS = 64;

function valueAt(data: unknown, p: readonly PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const k of p) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** ":line:col" of the YAML node at a path (or of its key), or of the nearest ancestor that exists. */
function locate(doc: Document, lineCounter: LineCounter, p: readonly PropertyKey[], atKey: boolean): string {
  for (let depth = p.length; depth >= 0; depth--) {
    const sub = p.slice(0, depth) as Array<string | number>;
    let offset: number | undefined;
    if (atKey && depth === p.length && depth > 0) {
      const parent = doc.getIn(sub.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((it) => isPair(it) && isScalar(it.key) && it.key.value === sub.at(-1));
        offset = pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      }
    } else {
      const node = sub.length === 0 ? doc.contents : doc.getIn(sub, true);
      offset = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
    }
    if (offset !== undefined) {
      const { line, col } = lineCounter.linePos(offset);
      return `:${line}:${col}`;
    }
  }
  return '';
}

/** The schema of the workload's variant (by its `tool`), for listing the keys it accepts. */
function variantSchema(data: unknown): unknown {
  const tool = (data as { tool?: unknown }).tool;
  return typeof tool === 'string' && Object.hasOwn(WORKLOAD_VARIANTS, tool)
    ? WORKLOAD_VARIANTS[tool as keyof typeof WORKLOAD_VARIANTS]
    : workloadSchema;
}

/** "; threads is a pgbench field" when top-level unknown keys belong to the other tool's workloads. */
function otherToolHint(data: unknown, p: readonly PropertyKey[], keys: string[]): string {
  const tool = (data as { tool?: unknown }).tool;
  if (p.length > 0 || typeof tool !== 'string') return '';
  const hints = Object.entries(WORKLOAD_VARIANTS)
    .filter(([other]) => other !== tool)
    .flatMap(([other, schema]) =>
      keys.filter((k) => Object.hasOwn(schema.shape, k)).map((k) => `${k} is a ${other} field`),
    );
  return hints.length > 0 ? `; ${hints.join(', ')}` : '';
}

/** The object keys the schema accepts at a path (for "expected one of" in unknown-key messages). */
function schemaShapeAt(root: unknown, p: readonly PropertyKey[]): Record<string, unknown> {
  let schema: unknown = root;
  for (const k of [...p, null]) {
    // Unwrap defaults/optionals/pipes until an object or array shows; of a union (instructions: a boolean
    // or an object; cpus: "auto" or an object), its object option: the one an unknown key was found in.
    for (let i = 0; i < 10; i++) {
      const def = (
        schema as {
          _zod?: { def?: { innerType?: unknown; in?: unknown; options?: unknown[]; type?: string } };
        }
      )?._zod?.def;
      const objectOption = def?.options?.find(
        (o) => (o as { _zod?: { def?: { shape?: unknown } } })._zod?.def?.shape,
      );
      if (def?.innerType) schema = def.innerType;
      else if (def?.in) schema = def.in;
      else if (objectOption) schema = objectOption;
      else break;
    }
    if (k === null) break;
    const def = (schema as { _zod: { def: { shape?: Record<string, unknown>; element?: unknown } } })._zod
      .def;
    schema = typeof k === 'number' ? def.element : def.shape?.[String(k)];
  }
  return (schema as { _zod?: { def?: { shape?: Record<string, unknown> } } })?._zod?.def?.shape ?? {};
}
