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
 * (c) **PR code holds no privilege.** A job that runs a pull request's code (a pgperf step in mode benchmark,
 *     the default, which builds and runs the PR head; or an actions/checkout of the PR head) in a workflow
 *     started by `pull_request_target`, `issue_comment` or `workflow_run` holds no write permission (its own
 *     `permissions:`, or the workflow's when it has none; neither means the repository's default token,
 *     which may write) and reads no secret but GITHUB_TOKEN (whose rights are those permissions). These
 *     three events run in the base repository's context, with its token and secrets, whoever wrote the PR.
 *     On `pull_request` GitHub itself gives a fork's PR a read-only token and no secrets, so the plain gate
 *     may post with its own token: a same-repository PR's author can push already.
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
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  if?: unknown;
  permissions?: Record<string, string> | string;
  concurrency?: unknown;
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

/** Events whose runs have the base repository's token and secrets, whoever wrote the pull request. */
const PRIVILEGED_EVENTS = ['pull_request_target', 'issue_comment', 'workflow_run'];
const PR_HEAD_REF = /pull_request\.head|workflow_run\.head|head[-_]sha|refs\/pull\//;

/** What of a job runs the PR's code, or undefined. */
function prCode(job: Job): string | undefined {
  for (const s of job.steps ?? []) {
    if (s.uses?.startsWith('pgperf/pgperf@') && (s.with?.mode ?? 'benchmark') === 'benchmark') {
      return 'a pgperf benchmark step builds and runs it';
    }
    if (s.uses?.startsWith('actions/checkout@') && PR_HEAD_REF.test(String(s.with?.ref ?? ''))) {
      return 'it checks out the PR head';
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

/** (c) A job that runs PR code on a privileged event holds no write permission and reads no secret. */
function privilegeProblems(p: Parsed): string[] {
  const events = [...triggers(p.wf).keys()].filter((e) => PRIVILEGED_EVENTS.includes(e));
  if (events.length === 0) return [];
  const out: string[] = [];
  for (const [name, job] of Object.entries(p.wf.jobs ?? {})) {
    const what = prCode(job);
    if (!what) continue;
    const where = `${at(p, ['jobs', name])} job ${name}: runs PR code (${what}) on ${events.join(', ')}`;
    const permissions = job.permissions ?? p.wf.permissions;
    if (permissions === undefined) {
      out.push(
        `${where} with no permissions: in the job or the workflow, so with the repository's default token, which may write`,
      );
    } else {
      const writes = writePermissions(permissions);
      if (writes.length) out.push(`${where} with write permission ${writes.join(', ')}`);
    }
    const secrets = [
      ...new Set(
        strings([job, p.wf.env]).flatMap((s) => [...s.matchAll(/\bsecrets\.([\w-]+)/g)].map((m) => m[1]!)),
      ),
    ];
    for (const secret of secrets.filter((s) => s !== 'GITHUB_TOKEN'))
      out.push(`${where} and reads secrets.${secret}`);
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

describe('the workflow examples of README.md and docs/ as GitHub runs them', () => {
  const all = workflowBlocks().map(parseBlock);

  it.each(DOC_PAGES.filter((page) => all.some((p) => p.block.page === page)))(
    '%s: workflow_run finds its workflow, label events are about their label, PR code holds no privilege',
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
      "docs/security.md:25 job bench: runs PR code (a pgperf benchmark step builds and runs it) on issue_comment with no permissions: in the job or the workflow, so with the repository's default token, which may write",
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
      'x.md:6 job bench: runs PR code (it checks out the PR head) on pull_request_target with write permission pull-requests',
      'x.md:6 job bench: runs PR code (it checks out the PR head) on pull_request_target and reads secrets.PGPERF_STORE',
    ]);
    const allWrite = workflow('workflow_run', ['    permissions: write-all']);
    expect(problems(parsedOf('x.md', allWrite))[0]).toBe(
      'x.md:6 job bench: runs PR code (it checks out the PR head) on workflow_run with write permission write-all',
    );
    // On pull_request GitHub gives a fork's PR a read-only token and no secrets: not this rule's business.
    expect(problems(parsedOf('x.md', workflow('pull_request')))).toEqual([]);
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
