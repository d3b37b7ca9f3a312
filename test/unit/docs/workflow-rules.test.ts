/**
 * What GitHub does with the workflow examples of README.md and docs/ (every ```yaml block with `jobs:`)
 * beyond what actionlint checks in one file (actionlint.test.ts). Three rules, each reported as page:line
 * and what is wrong:
 *
 * (a) **workflow_run finds its workflow.** Each name in `on: workflow_run: workflows:` is the `name:` of
 *     exactly one workflow shown in the same section of the page (under the same heading): workflow_run
 *     matches a workflow's `name:`, and a reader copies the pair together. A workflow without `name:` is not
 *     matched by a name, and one of the same name elsewhere on the page (the plain gate, also `perf`) is
 *     not the one the pair means.
 * (b) **A label event is about one label.** In a workflow that a `labeled`/`unlabeled` event starts
 *     (`pull_request` or `pull_request_target` with those types, `issues` with them or with no types), no
 *     job runs for an unrelated label: each job's `if:` is evaluated as GitHub would on such an event for the
 *     label 'an-unrelated-label', on a pull request or issue that already carries every label any `if:` of
 *     the workflow names, and must come out false (a job with `needs:` runs only as GitHub runs it: its needs
 *     succeeded, or its `if:` asks always()). And the workflow has no workflow-level `concurrency:`: every
 *     run joins that group before any `if:` is asked, so an unrelated label would cancel the running
 *     benchmark (cancel-in-progress) or replace the pending one. A job's own `concurrency:` is joined only
 *     by a job that runs.
 * (c) **Untrusted code holds no privilege.** A job that builds or runs code no maintainer wrote holds no
 *     write permission (its own `permissions:`, or the workflow's when it has none; neither means the
 *     repository's default token, which may write), reads no secret but GITHUB_TOKEN (whose rights are
 *     those permissions; nor the whole `secrets` context, nor `secrets: inherit`) and is handed no token but
 *     the job's own (a `token`/`github-token` input or a `*TOKEN*` variable of another value). Untrusted
 *     code is: a pgperf step in mode benchmark (the default) that builds a commitfest entry
 *     (`commitfest-entry`), applies patches (`patches`: a mailbox), or takes `head-ref`, `base-ref` or `repo`
 *     from a pull request, a `workflow_run` head, a comment or another job's outputs (a `/pgperf` command's
 *     sha); any mode benchmark step on `pull_request`, `pull_request_target`, `issue_comment` or
 *     `workflow_run` (it builds the PR head); a `run:` step that calls pgperf with `--cf`, `--head-patch` or
 *     `--base-patch`; an actions/checkout of the PR head. The rule holds on every trigger (`schedule`,
 *     `workflow_dispatch`, `workflow_run`, `issue_comment`, `pull_request_target`, `push`, ...: these run
 *     with the base repository's token and secrets, whoever wrote the code), with one exception: on
 *     `pull_request` a write permission is not flagged, since GitHub gives a fork's PR a read-only token and
 *     no secrets whatever the workflow asks, and a same-repository PR runs the workflow file of its own
 *     branch, whose author can push already (so the plain gate may post with its own token); a secret or a
 *     token there is still flagged. BROKEN_COMMITFEST keeps docs/action.md's commitfest examples as they were
 *     before issue #40, which this rule flags.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  DOC_PAGES,
  isWorkflow,
  workflowBlocks,
  yamlBlocksOf,
  type YamlBlock,
} from '../../helpers/doc-pages.js';
import { needsOf, strings } from '../../helpers/workflow-values.js';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  if?: unknown;
  permissions?: Record<string, string> | string;
  concurrency?: unknown;
  env?: Record<string, unknown>;
  secrets?: unknown;
  steps?: Step[];
}
interface Workflow {
  name?: string;
  on?: unknown;
  permissions?: Record<string, string> | string;
  concurrency?: unknown;
  env?: Record<string, unknown>;
  jobs?: Record<string, Job>;
}

/** A workflow block, parsed with the positions of its nodes. */
interface Parsed {
  block: YamlBlock;
  doc: Document.Parsed;
  lines: LineCounter;
  wf: Workflow;
}

function parseBlock(block: YamlBlock): Parsed {
  const lines = new LineCounter();
  const doc = parseDocument(block.text, { lineCounter: lines });
  return { block, doc, lines, wf: (doc.toJS() ?? {}) as Workflow };
}

/** `page:line` of the key at a path (as deep as it exists), e.g. ['jobs', 'bench', 'if']. */
function at(p: Parsed, path: ReadonlyArray<string | number>): string {
  let node: unknown = p.doc.contents;
  let offset = 0;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && it.key.value === key);
      if (!pair) break;
      offset = (pair.key as { range?: [number, number, number] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number' && node.items[key]) {
      node = node.items[key];
      offset = (node as { range?: [number, number, number] }).range?.[0] ?? offset;
    } else break;
  }
  return `${p.block.page}:${p.block.line + p.lines.linePos(offset).line}`;
}

/** The events of `on:`, each with its filter (types, workflows, ...). */
function triggers(wf: Workflow): Map<string, { types?: string[]; workflows?: string[] }> {
  const on = wf.on;
  if (typeof on === 'string') return new Map([[on, {}]]);
  if (Array.isArray(on)) return new Map(on.map((e) => [String(e), {}]));
  if (on && typeof on === 'object') {
    return new Map(Object.entries(on).map(([e, f]) => [e, (f ?? {}) as { types?: string[] }]));
  }
  return new Map();
}

// ---------------------------------------------------------------------------------------------------------
// GitHub's expressions, as far as an `if:` of these workflows needs them: literals, contexts with `.name`,
// `['name']` and the `.*` filter, ! == != < <= > >= && ||, and the functions below. Strings compare
// case-insensitively, values of other types as numbers, as GitHub does. Anything else is an error.

/** The result of a `.*` filter: the values of an array or object, each dereferenced further. */
class Filtered {
  constructor(readonly items: unknown[]) {}
}

/** GitHub's truthiness: false, 0, NaN, '' and null are false; objects, arrays and filters are true. */
function truthy(v: unknown): boolean {
  if (typeof v === 'object') return v !== null;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  return v !== undefined && v !== false && v !== '';
}

/** GitHub's conversion for comparing values of different types. */
function toNumber(v: unknown): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return v.trim() === '' ? 0 : Number(v);
  return NaN;
}

function equal(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if ((a ?? null) === null && (b ?? null) === null) return true;
  if (typeof a === typeof b && typeof a === 'object') return a === b;
  return toNumber(a) === toNumber(b);
}
const itemsOf = (v: unknown): unknown[] =>
  v instanceof Filtered ? v.items : Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : [];
function property(v: unknown, name: string): unknown {
  if (v instanceof Filtered) return new Filtered(v.items.map((x) => property(x, name)));
  if (!v || typeof v !== 'object') return null;
  const key = Object.keys(v).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? null : ((v as Record<string, unknown>)[key] ?? null);
}

const FUNCTIONS: Record<string, (status: { success: boolean }, ...args: unknown[]) => unknown> = {
  contains: (_, hay, needle) =>
    typeof hay === 'string'
      ? hay.toLowerCase().includes(String(needle ?? '').toLowerCase())
      : itemsOf(hay).some((x) => equal(x, needle)),
  startsWith: (_, s, p) =>
    String(s ?? '')
      .toLowerCase()
      .startsWith(String(p ?? '').toLowerCase()),
  endsWith: (_, s, p) =>
    String(s ?? '')
      .toLowerCase()
      .endsWith(String(p ?? '').toLowerCase()),
  fromJSON: (_, s) => JSON.parse(String(s)) as unknown,
  toJSON: (_, v) => JSON.stringify(v),
  join: (_, v, sep) =>
    itemsOf(v)
      .map(String)
      .join(sep === undefined ? ',' : String(sep)),
  format: (_, f, ...args) =>
    String(f).replace(/\{(\d+)\}/g, (_m, n: string) => String(args[Number(n)] ?? '')),
  always: () => true,
  success: (status) => status.success,
  failure: () => false,
  cancelled: () => false,
};

/** Evaluates an expression (with or without `${{ }}`) over the contexts. */
function evaluate(
  expression: string,
  contexts: Record<string, unknown>,
  status: { success: boolean },
): unknown {
  const src = expression.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const tokens: Array<{ k: 'num' | 'str' | 'op' | 'id'; v: string }> = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|'((?:[^']|'')*)'|(==|!=|<=|>=|&&|\|\||[!<>()[\].,*])|([A-Za-z_][\w-]*))/y;
  for (let pos = 0; src.slice(pos).trim() !== ''; pos = re.lastIndex) {
    re.lastIndex = pos;
    const m = re.exec(src);
    if (!m) throw new Error(`cannot evaluate '${src.trim()}' at '${src.slice(pos).trim()}'`);
    if (m[1] !== undefined) tokens.push({ k: 'num', v: m[1] });
    else if (m[2] !== undefined) tokens.push({ k: 'str', v: m[2].replace(/''/g, "'") });
    else if (m[3] !== undefined) tokens.push({ k: 'op', v: m[3] });
    else tokens.push({ k: 'id', v: m[4]! });
  }
  let i = 0;
  const fail = (): never => {
    throw new Error(`cannot evaluate '${src.trim()}' at ${tokens[i] ? `'${tokens[i]!.v}'` : 'its end'}`);
  };
  const op = (v: string) => tokens[i]?.k === 'op' && tokens[i]!.v === v && ++i > 0;
  const need = (v: string) => op(v) || fail();
  /** `operand` (operator `operand`)*, left to right: both sides are evaluated, `pick` chooses the value. */
  const chain = (operator: string, operand: () => unknown, pick: (l: unknown, r: unknown) => unknown) => {
    let l = operand();
    while (op(operator)) l = pick(l, operand());
    return l;
  };
  const or = (): unknown => chain('||', and, (l, r) => (truthy(l) ? l : r));
  const and = (): unknown => chain('&&', compare, (l, r) => (truthy(l) ? r : l));
  const compare = (): unknown => {
    let l = unary();
    for (;;) {
      const t = tokens[i];
      if (t?.k !== 'op' || !['==', '!=', '<', '<=', '>', '>='].includes(t.v)) return l;
      i++;
      const r = unary();
      const [a, b] = [toNumber(l), toNumber(r)];
      l = { '==': equal(l, r), '!=': !equal(l, r), '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b }[t.v];
    }
  };
  const unary = (): unknown => (op('!') ? !truthy(unary()) : postfix());
  const postfix = (): unknown => {
    let v = primary();
    for (;;) {
      if (op('.')) {
        if (op('*')) v = new Filtered(itemsOf(v));
        else if (tokens[i]?.k === 'id') v = property(v, tokens[i++]!.v);
        else fail();
      } else if (op('[')) {
        const k = op('*') ? undefined : or();
        need(']');
        v = k === undefined ? new Filtered(itemsOf(v)) : property(v, String(k));
      } else return v;
    }
  };
  const primary = (): unknown => {
    const t = tokens[i++];
    if (!t) return fail();
    if (t.k === 'num') return Number(t.v);
    if (t.k === 'str') return t.v;
    if (t.k === 'op' && t.v === '(') {
      const v = or();
      need(')');
      return v;
    }
    if (t.k !== 'id') return fail();
    if (op('(')) {
      const fn = Object.entries(FUNCTIONS).find(([n]) => n.toLowerCase() === t.v.toLowerCase())?.[1];
      if (!fn) throw new Error(`cannot evaluate '${src.trim()}': unknown function ${t.v}()`);
      const args: unknown[] = [];
      if (!op(')')) {
        do args.push(or());
        while (op(','));
        need(')');
      }
      return fn(status, ...args);
    }
    const word = t.v.toLowerCase();
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    return contexts[t.v] ?? null;
  };
  const value = or();
  if (i < tokens.length) fail();
  return value;
}

/**
 * Whether each job of a workflow runs on an event, as GitHub decides: a job runs when its `if:` (default
 * `success()`; one without a status function gets `success() &&`) holds, where success() means every job
 * it needs ran and succeeded (assumed for those that run).
 */
function runningJobs(wf: Workflow, contexts: Record<string, unknown>): Map<string, boolean> {
  const jobs = wf.jobs ?? {};
  const memo = new Map<string, boolean>();
  const runs = (name: string): boolean => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    memo.set(name, false); // a cycle runs nothing
    const job = jobs[name] ?? {};
    const success = needsOf(job).every(runs);
    const condition = job.if === undefined ? 'success()' : String(job.if);
    const statusFn = /\b(success|failure|always|cancelled)\s*\(/i.test(condition);
    const result = truthy(evaluate(condition, contexts, { success })) && (statusFn || success);
    memo.set(name, result);
    return result;
  };
  return new Map(Object.keys(jobs).map((name) => [name, runs(name)]));
}

// ---------------------------------------------------------------------------------------------------------
// The rules.

/** (a) Each `workflow_run: workflows: [X]` names exactly one workflow `name: X` shown in the same section. */
function workflowRunProblems(set: Parsed[]): string[] {
  const out: string[] = [];
  for (const p of set) {
    const filter = triggers(p.wf).get('workflow_run');
    if (!filter) continue;
    for (const name of filter.workflows ?? []) {
      const beside = set.filter((q) => q.block.page === p.block.page && q.block.section === p.block.section);
      const named = beside.filter((q) => q.wf.name === name);
      if (named.length === 1) continue;
      out.push(
        `${at(p, ['on', 'workflow_run', 'workflows'])}: workflow_run names workflow '${name}', but ` +
          (named.length === 0
            ? `no workflow shown beside it (section "${p.block.section}") has name: ${name} (workflow_run matches a workflow's name:)`
            : `${named.length} workflows shown beside it have name: ${name}`),
      );
    }
  }
  return out;
}

const UNRELATED_LABEL = 'an-unrelated-label';
/** The activity types of an event when `types:` is not given (GitHub's defaults). */
const DEFAULT_TYPES: Record<string, string[]> = {
  pull_request: ['opened', 'synchronize', 'reopened'],
  pull_request_target: ['opened', 'synchronize', 'reopened'],
  issues: ['labeled', 'unlabeled'], // all types, of which these two matter here
};

/** Every string literal of the jobs' `if:`s: the labels a pull request or issue may carry for the test. */
const literalsOfIfs = (wf: Workflow) => [
  ...new Set(
    Object.values(wf.jobs ?? {}).flatMap((j) =>
      strings(j.if).flatMap((s) =>
        [...s.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'")),
      ),
    ),
  ),
];

/** The `labeled`/`unlabeled` events that start a workflow, e.g. [['pull_request', 'labeled']]. */
const labelEvents = (wf: Workflow): Array<[string, string]> =>
  [...triggers(wf)]
    .filter(([event]) => event in DEFAULT_TYPES)
    .flatMap(([event, filter]) =>
      (filter.types ?? DEFAULT_TYPES[event]!)
        .filter((t) => t === 'labeled' || t === 'unlabeled')
        .map((action): [string, string] => [event, action]),
    );

/** (b) No job runs for an unrelated label, and no workflow-level concurrency where label events start runs. */
function labelProblems(p: Parsed): string[] {
  const out: string[] = [];
  const carried = literalsOfIfs(p.wf);
  const carrying = carried.length ? ` (it carries ${carried.map((n) => `'${n}'`).join(', ')})` : '';
  const events = labelEvents(p.wf);
  for (const [event, action] of events) {
    const [subject, on] = event === 'issues' ? ['issue', 'an issue'] : ['pull_request', 'a pull request'];
    const labels = carried.map((name) => ({ name }));
    const github = {
      event_name: event,
      event: { action, label: { name: UNRELATED_LABEL }, [subject]: { number: 1, labels } },
    };
    let running: Map<string, boolean>;
    try {
      running = runningJobs(p.wf, { github, needs: {}, inputs: {}, vars: {}, env: {} });
    } catch (e) {
      out.push(`${at(p, ['jobs'])}: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    for (const [job, runs] of running) {
      if (!runs) continue;
      out.push(
        `${at(p, ['jobs', job, 'if'])} job ${job}: runs when the label '${UNRELATED_LABEL}' is ${action} on ${on}${carrying}: its if: must ask github.event.label.name`,
      );
    }
  }
  if (events.length > 0 && p.wf.concurrency !== undefined) {
    out.push(
      `${at(p, ['concurrency'])}: workflow-level concurrency in a workflow that label events start: an unrelated label joins the group before any if: is asked and cancels or replaces the run in it; put concurrency on the job`,
    );
  }
  return out;
}

/**
 * Events whose jobs may hold a write token: every event but `pull_request`. On `pull_request` GitHub gives a
 * fork's PR a read-only token and no secrets whatever the workflow asks, and a same-repository PR runs the
 * workflow file of its own branch, whose author can push already.
 */
const READ_ONLY_EVENTS = ['pull_request'];
/** Events whose benchmark step builds a pull request's head by default (or only such a head, in the examples). */
const PR_EVENTS = ['pull_request', 'pull_request_target', 'issue_comment', 'workflow_run'];
const PR_HEAD_REF = /pull_request\.head|workflow_run\.head|head[-_]sha|refs\/pull\//;
/** A ref a command job, a comment or a PR event chose: what a `/pgperf` command or a PR asks to build. */
const UNTRUSTED_REF =
  /pull_request\.head|workflow_run\.head|head[-_]sha|refs\/pull\/|needs\.[\w-]+\.outputs\.|github\.event\.(?:issue|comment)\b/;
/** pgperf's flags that build someone's patch: a commitfest entry, patch files (a mailbox). */
const PATCH_FLAGS = /(?:^|\s)--(?:cf|head-patch|base-patch)\b/m;
const isPgperfStep = (s: Step) => s.uses?.startsWith('pgperf/pgperf@') === true;

/**
 * What of a job builds or runs code no maintainer wrote (a pull request's head, a commitfest entry, a patch
 * from the list), or undefined.
 */
function untrustedCode(job: Job, events: readonly string[]): string | undefined {
  for (const s of job.steps ?? []) {
    if (isPgperfStep(s) && (s.with?.mode ?? 'benchmark') === 'benchmark') {
      if (s.with?.['commitfest-entry'] !== undefined) {
        return "a pgperf step builds a commitfest entry, anyone's patch";
      }
      if (s.with?.patches !== undefined) return "a pgperf step applies patches, a mailbox patch is anyone's";
      const ref = ['head-ref', 'base-ref', 'repo'].find((k) => UNTRUSTED_REF.test(String(s.with?.[k] ?? '')));
      if (ref) return `a pgperf step builds ${ref} ${String(s.with![ref])}`;
      if (events.some((e) => PR_EVENTS.includes(e))) return 'a pgperf benchmark step builds the PR head';
    }
    if (s.uses?.startsWith('actions/checkout@') && PR_HEAD_REF.test(String(s.with?.ref ?? ''))) {
      return 'it checks out the PR head';
    }
    if (s.run && /\bpgperf\b|cli\.js\b/.test(s.run) && PATCH_FLAGS.test(s.run)) {
      return `a run step builds a patch with pgperf (${PATCH_FLAGS.exec(s.run)![0].trim()})`;
    }
  }
  return undefined;
}

/** The scopes a `permissions:` value writes ('write-all' for that shorthand). */
function writePermissions(permissions: Record<string, string> | string): string[] {
  if (typeof permissions === 'string') return permissions === 'read-all' ? [] : [permissions];
  return Object.entries(permissions ?? {})
    .filter(([, v]) => v === 'write')
    .map(([k]) => k);
}

/** The job's own token, whose rights are the job's permissions: the only token a step of it may be handed. */
const OWN_TOKEN = /^\$\{\{\s*(?:github\.token|secrets\.GITHUB_TOKEN)\s*\}\}$/;

/** Tokens handed to a job's steps other than its own: `with:` token inputs and `*TOKEN*` variables. */
function handedTokens(job: Job, wf: Workflow): string[] {
  const out: string[] = [];
  const check = (where: string, values: Record<string, unknown> | undefined, name: RegExp) => {
    for (const [key, value] of Object.entries(values ?? {})) {
      if (name.test(key) && !OWN_TOKEN.test(String(value).trim()))
        out.push(`${where} ${key}: ${String(value)}`);
    }
  };
  check('env', wf.env, /token/i);
  check('env', job.env, /token/i);
  for (const s of job.steps ?? []) {
    check(`${s.uses ?? 'run'} with`, s.with, /token/i);
    check('env', s.env, /token/i);
  }
  return out;
}

/**
 * The secrets a string reads: `secrets.NAME` anywhere, `secrets['NAME']` and the whole `secrets` context
 * ('*', e.g. toJSON(secrets)) inside an expression.
 */
function secretsRead(text: string): string[] {
  const names = [...text.matchAll(/\bsecrets\.([\w-]+)/g)].map((m) => m[1]!);
  for (const [expression] of text.matchAll(/\$\{\{[\s\S]*?\}\}/g)) {
    for (const m of expression.matchAll(/\bsecrets\b(?:\s*\[\s*'([^']*)'\s*\])?(?!\s*\.)/g)) {
      names.push(m[1] ?? '*');
    }
  }
  return names;
}

/**
 * (c) A job that builds or runs untrusted code holds no write permission (on every event but
 * pull_request), reads no secret but GITHUB_TOKEN and is handed no other token.
 */
function privilegeProblems(p: Parsed): string[] {
  const events = [...triggers(p.wf).keys()];
  const writeMatters = events.some((e) => !READ_ONLY_EVENTS.includes(e));
  const out: string[] = [];
  for (const [name, job] of Object.entries(p.wf.jobs ?? {})) {
    const what = untrustedCode(job, events);
    if (!what) continue;
    const where = `${at(p, ['jobs', name])} job ${name}: runs untrusted code (${what}) on ${events.join(', ')}`;
    const permissions = job.permissions ?? p.wf.permissions;
    if (!writeMatters) {
      // pull_request alone: GitHub caps a fork's token at read and gives it no secrets.
    } else if (permissions === undefined) {
      out.push(
        `${where} with no permissions: in the job or the workflow, so with the repository's default token, which may write`,
      );
    } else {
      const writes = writePermissions(permissions);
      if (writes.length) out.push(`${where} with write permission ${writes.join(', ')}`);
    }
    const secrets = [...new Set(strings([job, p.wf.env]).flatMap(secretsRead))];
    for (const secret of secrets.filter((s) => s !== 'GITHUB_TOKEN')) {
      out.push(`${where} and reads ${secret === '*' ? 'every secret (secrets)' : `secrets.${secret}`}`);
    }
    if (job.secrets === 'inherit') out.push(`${where} and passes secrets: inherit`);
    for (const token of handedTokens(job, p.wf)) out.push(`${where} and is handed a token: ${token}`);
  }
  return out;
}

function problems(set: Parsed[]): string[] {
  return [...workflowRunProblems(set), ...set.flatMap(labelProblems), ...set.flatMap(privilegeProblems)];
}

const parsedOf = (page: string, markdown: string) =>
  yamlBlocksOf(page, markdown).filter(isWorkflow).map(parseBlock);

// ---------------------------------------------------------------------------------------------------------
// Copies of examples as they were before issue #29, each broken in the way the rule is about.

/** docs/action.md: the gate (name: perf) and the fork pair, whose perf.yml had no name:. */
const BROKEN_FORK_PAIR = `# GitHub Action

## Gate pull requests

\`\`\`yaml
name: perf
on:
  pull_request:
permissions:
  contents: read
  pull-requests: write
  statuses: write
jobs:
  pgbench:
    runs-on: [self-hosted, linux, perf]   # a quiet, dedicated machine
    steps:
      - uses: pgperf/pgperf@v0
        with:
          workloads: |
            select-only
            tpcb-like
\`\`\`

## Fork pull requests: two workflows

\`\`\`yaml
# .github/workflows/perf.yml: runs the PR's code, read-only
on: pull_request
permissions: { contents: read }
jobs:
  bench:
    runs-on: [self-hosted, perf]
    steps:
      - uses: pgperf/pgperf@v0
        with: { comment: false, commit-status: false, fail-on: never }
      - uses: actions/upload-artifact@v4
        with: { name: pgperf-results, path: pgperf-results }
\`\`\`

\`\`\`yaml
# .github/workflows/perf-comment.yml: no PR code, write token
on:
  workflow_run:
    workflows: [perf]
    types: [completed]
permissions: { pull-requests: write, statuses: write, actions: read }
jobs:
  comment:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
        with:
          name: pgperf-results
          path: pgperf-results
          run-id: \${{ github.event.workflow_run.id }}
          github-token: \${{ github.token }}
      - uses: pgperf/pgperf@v0
        with: { mode: comment }   # PR number and commits come from results.json
\`\`\`
`;

/** README.md's perf-label.yml: any label added cancelled the running benchmark and started it again. */
const BROKEN_LABEL = `## Steer from the PR

\`\`\`yaml
# .github/workflows/perf-label.yml
name: perf-label
on:
  pull_request:
    types: [labeled, synchronize]
permissions: { contents: read, pull-requests: write, statuses: write }
concurrency: { group: 'pgperf-pr-\${{ github.event.pull_request.number }}', cancel-in-progress: true }
jobs:
  pgbench:
    if: contains(github.event.pull_request.labels.*.name, 'perf')
    runs-on: [self-hosted, linux, perf]
    steps:
      - uses: pgperf/pgperf@v0
        with:
          workloads: select-only
          max-rounds: 20
\`\`\`
`;

/** docs/security.md: the fork benchmark gated on a label, and a hand-written /perf command workflow. */
const BROKEN_SECURITY = `## Self-hosted runners: hardening

1. **Run fork PRs only after a maintainer looked.**

   \`\`\`yaml
   # .github/workflows/perf.yml: runs the PR's code, read-only, only when a maintainer labels it
   on:
     pull_request:
       types: [labeled, synchronize]
   permissions: { contents: read }
   jobs:
     bench:
       if: contains(github.event.pull_request.labels.*.name, 'perf')
       runs-on: [self-hosted, perf]
       steps:
         - uses: pgperf/pgperf@v0
           with: { comment: false, commit-status: false, fail-on: never }
         - uses: actions/upload-artifact@v4
           with: { name: pgperf-results, path: pgperf-results }
   \`\`\`

   \`\`\`yaml
   on: { issue_comment: { types: [created] } }
   jobs:
     bench:
       if: >-
         github.event.issue.pull_request && startsWith(github.event.comment.body, '/perf ') &&
         contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'), github.event.comment.author_association)
       runs-on: [self-hosted, perf]
       steps:
         - id: pin   # "/perf <full sha>": the commit the maintainer reviewed
           env: { GH_TOKEN: '\${{ github.token }}', BODY: '\${{ github.event.comment.body }}' }
           run: |
             sha=$(printf '%s' "$BODY" | sed -n '1s|^/perf \\([0-9a-f]\\{40\\}\\)$|\\1|p')
         - uses: pgperf/pgperf@v0
           with:
             head-ref: \${{ steps.pin.outputs.sha }}
             base-ref: \${{ steps.pin.outputs.base }}
             pr-number: \${{ github.event.issue.number }}
   \`\`\`
`;

/**
 * docs/action.md before issue #40: the commitfest patch by hand (no permissions: the default token) and the
 * scheduled commitfest sweep, whose bench job built anyone's patch with `contents: write` for the data
 * branch (a `configure` that read /proc/PID/environ found INPUT_GITHUB-TOKEN).
 */
const BROKEN_COMMITFEST = `## A commitfest patch, by hand

\`\`\`yaml
on:
  workflow_dispatch:
    inputs:
      ref: { description: 'base ref', default: master }
jobs:
  patch:
    runs-on: [self-hosted, perf]
    steps:
      - uses: actions/checkout@v4          # holds the patch files
      - uses: pgperf/pgperf@v0
        with:
          repo: https://git.postgresql.org/git/postgresql.git
          base-ref: \${{ inputs.ref }}
          head-ref: \${{ inputs.ref }}
          patches: |
            patches/v3-0001-Avoid-BufferGetLSNAtomic-calls-during-nbtree-scans.patch
          workloads: select-only
          comment: false
          commit-status: false
\`\`\`

## Commitfest entries

\`\`\`yaml
# .github/workflows/commitfest.yml
name: commitfest
on:
  schedule:
    - cron: '17 */6 * * *'
  workflow_dispatch:
permissions: { contents: read }
concurrency: { group: commitfest }   # one sweep at a time: the cached list is the last sweep's
env:
  CFBOT_REPO: https://github.com/postgresql-cfbot/postgresql.git
  MAX_ENTRIES: 20
jobs:
  moved:
    runs-on: ubuntu-latest
    outputs:
      entries: \${{ steps.moved.outputs.entries }}
    steps:
      - uses: actions/cache/restore@v4
        with:
          path: cf-seen.txt
          key: cf-seen-\${{ github.run_id }}
          restore-keys: cf-seen-
      - id: moved
        run: |
          export LC_ALL=C
          # "id sha" of every cf/<id> branch now
          git ls-remote --heads "$CFBOT_REPO" 'refs/heads/cf/*' |
            sed -n 's|^\\([0-9a-f]*\\)\\trefs/heads/cf/\\([0-9]*\\)$|\\2 \\1|p' | sort > cf-now.txt
          touch cf-seen.txt
          # an entry runs when its line is new: its branch is new or its head moved
          comm -13 cf-seen.txt cf-now.txt > cf-moved.txt
          head -n "$MAX_ENTRIES" cf-moved.txt > cf-run.txt
          # remembered: the entries scheduled now at their new head, the others as last seen (if still listed)
          awk 'FILENAME == ARGV[1] { run[$1] = 1; print; next }
               FILENAME == ARGV[2] { listed[$1] = 1; next }
               !($1 in run) && ($1 in listed)' cf-run.txt cf-now.txt cf-seen.txt | sort > cf-seen.next
          mv cf-seen.next cf-seen.txt
          echo "entries=[$(awk '{ printf "%s\\"%s\\"", (NR > 1 ? "," : ""), $1 }' cf-run.txt)]" >> "$GITHUB_OUTPUT"
      - uses: actions/cache/save@v4
        with:
          path: cf-seen.txt
          key: cf-seen-\${{ github.run_id }}
  bench:
    needs: moved
    if: needs.moved.outputs.entries != '[]'
    runs-on: [self-hosted, perf]
    permissions: { contents: write }   # the data branch
    strategy:
      fail-fast: false
      max-parallel: 1
      matrix:
        entry: \${{ fromJSON(needs.moved.outputs.entries) }}
    steps:
      - uses: pgperf/pgperf@v0
        with:
          commitfest-entry: \${{ matrix.entry }}   # head cf/<id>, base its merge-base with master
          workloads: select-only
          store-branch: pgperf-data
          store: commitfest/\${{ matrix.entry }}   # one history per entry
          comment: false
          commit-status: false
          fail-on: never
      - uses: actions/upload-artifact@v4
        if: always()
        with: { name: 'pgperf-cf-\${{ matrix.entry }}', path: pgperf-results }
\`\`\`
`;

describe('the workflow examples of README.md and docs/ as GitHub runs them', () => {
  const all = workflowBlocks().map(parseBlock);

  it.each(DOC_PAGES.filter((page) => all.some((p) => p.block.page === page)))(
    '%s: workflow_run finds its workflow, label events are about their label, untrusted code holds no privilege',
    (page) => {
      expect(problems(all.filter((p) => p.block.page === page))).toEqual([]);
    },
  );

  it('(a) names the workflow_run whose workflow has no name:, though the gate beside it is named perf', () => {
    const set = parsedOf('docs/action.md', BROKEN_FORK_PAIR);
    expect(set).toHaveLength(3);
    expect(workflowRunProblems(set)).toEqual([
      `docs/action.md:44: workflow_run names workflow 'perf', but no workflow shown beside it (section "Fork pull requests: two workflows") has name: perf (workflow_run matches a workflow's name:)`,
    ]);
    // Named, it is found; named twice beside it, it is ambiguous.
    const named = BROKEN_FORK_PAIR.replace(
      'read-only\non: pull_request',
      'read-only\nname: perf\non: pull_request',
    );
    expect(workflowRunProblems(parsedOf('docs/action.md', named))).toEqual([]);
    const twice = named.replace(
      '# .github/workflows/perf-comment.yml: no PR code, write token',
      'name: perf',
    );
    expect(workflowRunProblems(parsedOf('docs/action.md', twice))).toEqual([
      "docs/action.md:45: workflow_run names workflow 'perf', but 2 workflows shown beside it have name: perf",
    ]);
  });

  it('(b) names a job that any label starts, and the workflow-level concurrency an unrelated label cancels', () => {
    expect(problems(parsedOf('README.md', BROKEN_LABEL))).toEqual([
      "README.md:13 job pgbench: runs when the label 'an-unrelated-label' is labeled on a pull request (it carries 'perf'): its if: must ask github.event.label.name",
      'README.md:10: workflow-level concurrency in a workflow that label events start: an unrelated label joins the group before any if: is asked and cancels or replaces the run in it; put concurrency on the job',
    ]);
    expect(labelProblems(parsedOf('docs/security.md', BROKEN_SECURITY)[0]!)).toEqual([
      "docs/security.md:13 job bench: runs when the label 'an-unrelated-label' is labeled on a pull request (it carries 'perf'): its if: must ask github.event.label.name",
    ]);
  });

  it('(b) an issues workflow without types is started by every label, and a job that needs a skipped one is skipped', () => {
    const text = (condition: string) =>
      [
        '```yaml',
        'on: issues',
        'jobs:',
        '  first:',
        `    if: ${condition}`,
        '    runs-on: ubuntu-latest',
        '    steps: [{ run: "true" }]',
        '  then:',
        '    needs: first',
        '    runs-on: ubuntu-latest',
        '    steps: [{ run: "true" }]',
        '  anyway:',
        '    needs: first',
        '    if: always()',
        '    runs-on: ubuntu-latest',
        '    steps: [{ run: "true" }]',
        '```',
      ].join('\n');
    expect(problems(parsedOf('x.md', text("github.event.label.name == 'pgperf-bisect'")))).toEqual([
      "x.md:14 job anyway: runs when the label 'an-unrelated-label' is labeled on an issue (it carries 'pgperf-bisect'): its if: must ask github.event.label.name",
      "x.md:14 job anyway: runs when the label 'an-unrelated-label' is unlabeled on an issue (it carries 'pgperf-bisect'): its if: must ask github.event.label.name",
    ]);
    expect(
      problems(parsedOf('x.md', text("contains(github.event.issue.labels.*.name, 'pgperf-bisect')"))),
    ).toHaveLength(6);
  });

  it('(c) names the /perf command job that runs PR code with the default token', () => {
    expect(privilegeProblems(parsedOf('docs/security.md', BROKEN_SECURITY)[1]!)).toEqual([
      "docs/security.md:25 job bench: runs untrusted code (a pgperf benchmark step builds the PR head) on issue_comment with no permissions: in the job or the workflow, so with the repository's default token, which may write",
    ]);
  });

  it('(c) names write permissions and secrets on privileged events only, and lets posting jobs write', () => {
    const workflow = (on: string, extra: string[] = []) =>
      [
        '```yaml',
        `on: ${on}`,
        'permissions: { contents: read, pull-requests: write }',
        'env: { STORE: "${{ secrets.PGPERF_STORE }}" }',
        'jobs:',
        '  bench:',
        '    runs-on: [self-hosted, perf]',
        '    steps:',
        '      - uses: actions/checkout@v4',
        '        with: { ref: "${{ github.event.pull_request.head.sha }}", token: "${{ secrets.GITHUB_TOKEN }}" }',
        ...extra,
        '  post:',
        '    runs-on: ubuntu-latest',
        '    steps: [{ uses: pgperf/pgperf@v0, with: { mode: comment } }]',
        '```',
      ].join('\n');
    expect(problems(parsedOf('x.md', workflow('pull_request_target')))).toEqual([
      'x.md:6 job bench: runs untrusted code (it checks out the PR head) on pull_request_target with write permission pull-requests',
      'x.md:6 job bench: runs untrusted code (it checks out the PR head) on pull_request_target and reads secrets.PGPERF_STORE',
    ]);
    const allWrite = workflow('workflow_run', ['    permissions: write-all']);
    expect(problems(parsedOf('x.md', allWrite))[0]).toBe(
      'x.md:6 job bench: runs untrusted code (it checks out the PR head) on workflow_run with write permission write-all',
    );
    // On pull_request GitHub gives a fork's PR a read-only token and no secrets, so a write permission is not
    // this rule's business; a secret still is (a same-repository PR's build would read it).
    expect(problems(parsedOf('x.md', workflow('pull_request')))).toEqual([
      'x.md:6 job bench: runs untrusted code (it checks out the PR head) on pull_request and reads secrets.PGPERF_STORE',
    ]);
  });

  it('(c) flags the commitfest workflow as docs/action.md had it before issue #40: the bench job could write', () => {
    const set = parsedOf('docs/action.md', BROKEN_COMMITFEST);
    expect(set).toHaveLength(2);
    expect(problems(set)).toEqual([
      "docs/action.md:9 job patch: runs untrusted code (a pgperf step applies patches, a mailbox patch is anyone's) on workflow_dispatch with no permissions: in the job or the workflow, so with the repository's default token, which may write",
      "docs/action.md:70 job bench: runs untrusted code (a pgperf step builds a commitfest entry, anyone's patch) on schedule, workflow_dispatch with write permission contents",
    ]);
    // The job that remembers the entries (no entry's code) may do what it likes; so may a nightly of master.
    expect(problems(set).some((m) => m.includes('job moved'))).toBe(false);
  });

  /** A one-job workflow on `on`, its job with `permissions` and the pgperf step's `with`. */
  const oneJob = (on: string, permissions: string | undefined, withs: string, extra: string[] = []) =>
    [
      '```yaml',
      `on: ${on}`,
      'jobs:',
      '  bench:',
      '    runs-on: [self-hosted, perf]',
      ...(permissions === undefined ? [] : [`    permissions: ${permissions}`]),
      '    steps:',
      `      - uses: pgperf/pgperf@v0`,
      `        with: ${withs}`,
      ...extra,
      '```',
    ].join('\n');

  it.each([
    ['schedule', '{ commitfest-entry: 4711 }', "a pgperf step builds a commitfest entry, anyone's patch"],
    [
      'workflow_dispatch',
      '{ patches: x.mbox, head-ref: master }',
      "a pgperf step applies patches, a mailbox patch is anyone's",
    ],
    [
      'workflow_run',
      '{ head-ref: "${{ github.event.workflow_run.head_sha }}" }',
      'a pgperf step builds head-ref ${{ github.event.workflow_run.head_sha }}',
    ],
    [
      'issue_comment',
      '{ head-ref: "${{ needs.command.outputs.head-sha }}" }',
      'a pgperf step builds head-ref ${{ needs.command.outputs.head-sha }}',
    ],
    ['pull_request_target', '{ workloads: select-only }', 'a pgperf benchmark step builds the PR head'],
    [
      'push',
      '{ repo: "${{ github.event.comment.body }}" }',
      'a pgperf step builds repo ${{ github.event.comment.body }}',
    ],
  ])(
    '(c) on %s, a job that builds untrusted code (%s) may not write, read a secret or hold another token',
    (on, withs, what) => {
      const where = `x.md:4 job bench: runs untrusted code (${what}) on ${on}`;
      expect(problems(parsedOf('x.md', oneJob(on, undefined, withs)))).toEqual([
        `${where} with no permissions: in the job or the workflow, so with the repository's default token, which may write`,
      ]);
      expect(problems(parsedOf('x.md', oneJob(on, '{ contents: write }', withs)))).toEqual([
        `${where} with write permission contents`,
      ]);
      const secret = oneJob(on, '{ contents: read }', withs, [
        '        env: { STORE: "${{ secrets.PGPERF_STORE }}", ALL: "${{ toJSON(secrets) }}", GH_TOKEN: "${{ secrets.PAT }}" }',
        '      - uses: actions/checkout@v4',
        '        with: { token: "${{ needs.x.outputs.token }}" }',
      ]);
      expect(problems(parsedOf('x.md', secret))).toEqual([
        `${where} and reads secrets.PGPERF_STORE`,
        `${where} and reads every secret (secrets)`,
        `${where} and reads secrets.PAT`,
        `${where} and is handed a token: env GH_TOKEN: \${{ secrets.PAT }}`,
        `${where} and is handed a token: actions/checkout@v4 with token: \${{ needs.x.outputs.token }}`,
      ]);
      // Read-only, no secret, the job's own token at most: nothing to say.
      const clean = oneJob(on, '{ contents: read }', withs, [
        '        env: { GITHUB_TOKEN: "${{ github.token }}" }',
      ]);
      expect(problems(parsedOf('x.md', clean))).toEqual([]);
    },
  );

  it("(c) on pull_request, a write permission is GitHub's to cap; a secret or a token is still flagged", () => {
    expect(
      problems(parsedOf('x.md', oneJob('pull_request', '{ pull-requests: write }', '{ rounds: 8 }'))),
    ).toEqual([]);
    const pat = oneJob('pull_request', undefined, '{ github-token: "${{ secrets.PAT }}" }');
    expect(problems(parsedOf('x.md', pat))).toEqual([
      'x.md:4 job bench: runs untrusted code (a pgperf benchmark step builds the PR head) on pull_request and reads secrets.PAT',
      'x.md:4 job bench: runs untrusted code (a pgperf benchmark step builds the PR head) on pull_request and is handed a token: pgperf/pgperf@v0 with github-token: ${{ secrets.PAT }}',
    ]);
  });

  it('(c) a run step that builds a patch with the CLI counts; trusted builds and posting jobs may write', () => {
    const cli = [
      '```yaml',
      'on: { schedule: [{ cron: "0 3 * * *" }] }',
      'permissions: { contents: write }',
      'jobs:',
      '  cf:',
      '    runs-on: [self-hosted, perf]',
      '    steps:',
      '      - run: node pgperf/dist/cli.js run --cf 4711 --workload select-only',
      '  nightly:',
      '    runs-on: [self-hosted, perf]',
      '    steps: [{ uses: pgperf/pgperf@v0, with: { mode: nightly, store-branch: pgperf-data } }]',
      '  master:',
      '    runs-on: [self-hosted, perf]',
      '    steps: [{ uses: pgperf/pgperf@v0, with: { base-ref: REL_17_STABLE, head-ref: master } }]',
      '  save:',
      '    runs-on: ubuntu-latest',
      '    steps: [{ run: node pgperf/dist/cli.js store import cf/results.json --store data }]',
      '```',
    ].join('\n');
    expect(problems(parsedOf('x.md', cli))).toEqual([
      'x.md:5 job cf: runs untrusted code (a run step builds a patch with pgperf (--cf)) on schedule with write permission contents',
    ]);
  });

  it('the commitfest, fork and mailbox examples are found running untrusted code, each in a read-only job with no secret (#40)', () => {
    // Not vacuous: rule (c) sees the jobs of the docs that build someone's patch, and each holds nothing.
    const found = all.flatMap((p) =>
      Object.entries(p.wf.jobs ?? {}).flatMap(([name, job]) => {
        const events = [...triggers(p.wf).keys()];
        const what = untrustedCode(job, events);
        return what ? [{ p, name, job, what, events }] : [];
      }),
    );
    const kinds = (match: RegExp) => found.filter((f) => match.test(f.what));
    const commitfest = kinds(/commitfest entry/);
    const mailbox = kinds(/applies patches/);
    const fork = found.filter((f) => f.events.includes('pull_request') && /PR head/.test(f.what));
    expect(commitfest.map((f) => f.p.block.page)).toContain('docs/action.md');
    expect(mailbox.map((f) => f.p.block.page)).toContain('docs/action.md');
    expect(fork.length).toBeGreaterThan(0);
    for (const f of [...commitfest, ...mailbox, ...fork]) {
      const where = `${at(f.p, ['jobs', f.name])} job ${f.name}`;
      const permissions = f.job.permissions ?? f.p.wf.permissions;
      // pull_request alone: GitHub caps the token; every other trigger must say read-only itself.
      if (!f.events.every((e) => READ_ONLY_EVENTS.includes(e))) {
        expect(permissions, where).toBeDefined();
        expect(writePermissions(permissions!), where).toEqual([]);
      }
      expect(
        strings([f.job, f.p.wf.env])
          .flatMap(secretsRead)
          .filter((n) => n !== 'GITHUB_TOKEN'),
        where,
      ).toEqual([]);
      expect(handedTokens(f.job, f.p.wf), where).toEqual([]);
    }
    // The publishing jobs beside them that may write never build or run the patch.
    for (const p of new Set([...commitfest, ...mailbox].map((f) => f.p))) {
      for (const [name, job] of Object.entries(p.wf.jobs ?? {})) {
        const writes = writePermissions(job.permissions ?? p.wf.permissions ?? 'write-all');
        if (writes.length)
          expect(
            untrustedCode(job, [...triggers(p.wf).keys()]),
            `${p.block.page} job ${name}`,
          ).toBeUndefined();
      }
    }
  });

  it("README's perf-label runs for the label perf and for pushes while it is on, never for another label", () => {
    const [label] = all.filter((p) => p.wf.name === 'perf-label');
    const runs = (action: string, labels: string[], added?: string) =>
      runningJobs(label!.wf, {
        github: {
          event_name: 'pull_request',
          event: {
            action,
            label: added ? { name: added } : undefined,
            pull_request: { labels: labels.map((name) => ({ name })) },
          },
        },
      }).get('pgbench');
    expect(runs('labeled', ['perf'], 'perf')).toBe(true);
    expect(runs('synchronize', ['perf'])).toBe(true);
    expect(runs('synchronize', ['docs'])).toBe(false);
    expect(runs('labeled', ['perf', 'docs'], 'docs')).toBe(false);
    expect(runs('labeled', ['docs', 'perf'], 'docs')).toBe(false);
  });
});

describe('the expression evaluator behind rule (b)', () => {
  const github = {
    event: {
      action: 'labeled',
      label: { name: 'Perf' },
      pull_request: { labels: [{ name: 'a' }, { name: 'perf' }] },
    },
  };
  it.each([
    ["github.event.label.name == 'perf'", true], // strings compare case-insensitively
    ["${{ github.event.action != 'labeled' || github.event.label.name == 'x' }}", false],
    ["contains(github.event.pull_request.labels.*.name, 'PERF')", true],
    ["contains(github.event.pull_request.labels.*.name, 'b')", false],
    ["github.event['label'].name == 'perf' && !github.event.missing.deeper", true],
    ['contains(fromJSON(\'["x","perf"]\'), github.event.label.name)', true],
    ["startsWith(github.event.action, 'lab') && 1 < 2 && github.event.nothing == null", true],
  ])('%s is %s', (expression, value) => {
    expect(truthy(evaluate(expression, { github }, { success: true }))).toBe(value);
  });
  it('refuses what it cannot read instead of guessing', () => {
    expect(() => evaluate("hashFiles('x') == ''", { github }, { success: true })).toThrow(
      /unknown function hashFiles/,
    );
    expect(() => evaluate('github.event ==', { github }, { success: true })).toThrow(/cannot evaluate/);
  });
});
