/**
 * The workflow examples in README.md and docs/*.md are workflows a user can paste: every ```yaml block that
 * uses pgperf parses, each `with:` key of a pgperf step is an input of action.yml, each
 * `steps.<id>.outputs.<name>` of a pgperf step is an output of action.yml, each `needs.<job>.outputs.<name>`
 * is an output the job declares (and needs), and no step sets `rounds` beside `max-rounds`/`time-budget`
 * (the action refuses that). The three steering workflows of docs/pr-commands.md have the trigger,
 * permissions and concurrency their prose promises: the benchmark job of the command workflow never holds a
 * write permission and measures the sha the command job resolved. actionlint.test.ts lints the whole
 * workflows among them; workflow-rules.test.ts checks workflow_run names, label events and PR-code privileges.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, REPO_ROOT, yamlBlocks } from '../../helpers/doc-pages.js';
import { needsOf, strings } from '../../helpers/workflow-values.js';
import { parse } from 'yaml';

const action = parse(readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
};

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string> | string;
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean };
  outputs?: Record<string, string>;
  steps?: Step[];
}
interface Workflow {
  name?: string;
  on?: Record<string, { types?: string[] } | null> | string | string[];
  permissions?: Record<string, string>;
  concurrency?: { group?: string; 'cancel-in-progress'?: boolean };
  jobs?: Record<string, Job>;
}

interface Example {
  page: string;
  line: number;
  text: string;
}

/** The ```yaml blocks of a page that use the action. */
function examples(page: string): Example[] {
  return yamlBlocks(page).filter((b) => /uses: pgperf\/pgperf@/.test(b.text));
}

const pages = DOC_PAGES;
const all = pages.flatMap(examples);
const where = (e: Example) => `${e.page}:${e.line}`;
const isPgperf = (s: Step) => typeof s.uses === 'string' && s.uses.startsWith('pgperf/pgperf@');

/** The problems of one example, each naming the example, the job and what is wrong. */
function problems(e: Example): string[] {
  const out: string[] = [];
  const wf = parse(e.text) as Workflow;
  // A fragment (a job's body, or its steps alone) is checked as one job.
  const fragment = (Array.isArray(wf) ? { steps: wf } : wf) as Job;
  const jobs: Record<string, Job> = wf.jobs ?? { fragment };
  for (const [name, job] of Object.entries(jobs)) {
    const at = `${where(e)} job ${name}`;
    const stepOutputs = new Map<string, Set<string>>();
    for (const step of job.steps ?? []) {
      if (!isPgperf(step)) continue;
      if (step.id) stepOutputs.set(step.id, new Set(Object.keys(action.outputs)));
      const keys = Object.keys(step.with ?? {});
      for (const key of keys) {
        if (!(key in action.inputs)) out.push(`${at}: with '${key}' is not an input of action.yml`);
      }
      if (keys.includes('rounds') && (keys.includes('max-rounds') || keys.includes('time-budget'))) {
        out.push(`${at}: sets rounds and max-rounds/time-budget, which the action refuses together`);
      }
    }
    for (const s of strings(job)) {
      for (const m of s.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        const outputs = stepOutputs.get(m[1]!);
        if (outputs && !outputs.has(m[2]!)) out.push(`${at}: ${m[0]} is not an output of action.yml`);
      }
      for (const m of s.matchAll(/needs\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        if (!needsOf(job).includes(m[1]!)) out.push(`${at}: ${m[0]} but the job does not need ${m[1]}`);
        else if (!(m[2]! in (jobs[m[1]!]?.outputs ?? {}))) {
          out.push(`${at}: ${m[0]}: job ${m[1]} declares no output ${m[2]}`);
        }
      }
    }
  }
  return out;
}

/** The one docs/pr-commands.md example whose workflow name is `name`. */
function prCommandsWorkflow(name: string): Workflow {
  const found = examples('docs/pr-commands.md')
    .map((e) => parse(e.text) as Workflow)
    .filter((w) => w.name === name);
  expect(found, `docs/pr-commands.md has one workflow named ${name}`).toHaveLength(1);
  return found[0]!;
}

const writes = (p: Job['permissions'] | Workflow['permissions']) =>
  p === undefined
    ? ['(inherits the workflow permissions)']
    : typeof p === 'string'
      ? [p]
      : Object.entries(p)
          .filter(([, v]) => v === 'write')
          .map(([k]) => k);

describe('workflow examples in README.md and docs/', () => {
  it('finds them on the pages that show workflows', () => {
    const on = new Set(all.map((e) => e.page));
    for (const page of ['README.md', 'docs/action.md']) expect(on, page).toContain(page);
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  it.each(all.map((e) => [where(e), e] as const))(
    '%s parses and names only real inputs and outputs',
    (_, e) => {
      expect(problems(e)).toEqual([]);
    },
  );

  it('catches a misspelt input and an output no job declares (the check can fail)', () => {
    const bad: Example = {
      page: 'test',
      line: 1,
      text: [
        'jobs:',
        '  a:',
        '    outputs: { run: x }',
        '    steps: [{ uses: pgperf/pgperf@v0, id: s, with: { treshold: 2, rounds: 3, max-rounds: 9 } }]',
        '  b:',
        '    needs: a',
        "    if: needs.a.outputs.head-sha == 'x' && steps.s.outputs.nope",
        '    steps: [{ uses: pgperf/pgperf@v0, id: s }]',
      ].join('\n'),
    };
    expect(problems(bad)).toEqual([
      "test:1 job a: with 'treshold' is not an input of action.yml",
      'test:1 job a: sets rounds and max-rounds/time-budget, which the action refuses together',
      'test:1 job b: steps.s.outputs.nope is not an output of action.yml',
      'test:1 job b: needs.a.outputs.head-sha: job a declares no output head-sha',
    ]);
  });
});

describe('the steering workflows of docs/pr-commands.md', () => {
  it('perf-command: a /pgperf comment; the command job may write, the benchmark job reads only and measures its sha', () => {
    const wf = prCommandsWorkflow('perf-command');
    expect(wf.on).toEqual({ issue_comment: { types: ['created'] } });
    expect(wf.permissions).toEqual({});
    const jobs = wf.jobs!;
    const [commandName, command] = Object.entries(jobs).find(([, j]) =>
      j.steps?.some((s) => isPgperf(s) && s.with?.mode === 'command'),
    )!;
    expect(command.if).toMatch(/github\.event\.issue\.pull_request/);
    expect(command.if).toMatch(/startsWith\(github\.event\.comment\.body, '\/pgperf'\)/);
    expect(writes(command.permissions)).toEqual(expect.arrayContaining(['pull-requests', 'issues']));
    // The benchmark: the job whose pgperf step runs mode benchmark (the default mode).
    const benchmarks = Object.entries(jobs).filter(([, j]) =>
      j.steps?.some((s) => isPgperf(s) && (s.with?.mode ?? 'benchmark') === 'benchmark'),
    );
    expect(benchmarks).toHaveLength(1);
    const [, bench] = benchmarks[0]!;
    expect(needsOf(bench)).toEqual([commandName]);
    expect(bench.if).toBe(`needs.${commandName}.outputs.run == 'true'`);
    expect(writes(bench.permissions)).toEqual([]);
    const step = bench.steps!.find(isPgperf)!;
    expect(step.with).toMatchObject({
      'head-ref': `\${{ needs.${commandName}.outputs.head-sha }}`,
      'base-ref': `\${{ needs.${commandName}.outputs.base-sha }}`,
      'pr-number': `\${{ needs.${commandName}.outputs.pr-number }}`,
      comment: false,
      'commit-status': false,
    });
    // The result is posted by a job that runs no PR code (mode comment), after the benchmark, even if it failed.
    const report = Object.values(jobs).find(
      (j) => needsOf(j).includes(benchmarks[0]![0]) && j.steps?.some((s) => s.with?.mode === 'comment'),
    );
    expect(report?.if).toMatch(/^always\(\) && /);
    // An accept reposts the last results (its own job, from the run the comment shows).
    const accepted = Object.values(jobs).find(
      (j) => j.if === `needs.${commandName}.outputs.republish == 'true'`,
    );
    expect(accepted?.steps?.some((s) => s.with?.mode === 'comment')).toBe(true);
    expect(strings(accepted)).toContain(`\${{ needs.${commandName}.outputs.results-run-id }}`);
  });

  it('perf-label: runs when the label perf is added and on pushes while it is on; the job holds the concurrency', () => {
    const wf = prCommandsWorkflow('perf-label');
    expect(wf.on).toEqual({ pull_request: { types: ['labeled', 'synchronize'] } });
    const [job] = Object.values(wf.jobs!);
    // Which events it runs on is evaluated in workflow-rules.test.ts; here: it asks which label was added.
    expect(job!.if).toContain("github.event.label.name == 'perf'");
    // A workflow-level group is joined by every run, an unrelated label's too: the group is the job's.
    expect(wf.concurrency).toBeUndefined();
    expect(job!.concurrency).toMatchObject({ 'cancel-in-progress': true });
    expect(job!.concurrency!.group).toContain('github.event.pull_request.number');
  });

  it('perf-push: every push, the superseded run cancelled, the comment only on news', () => {
    const wf = prCommandsWorkflow('perf-push');
    expect(wf.on).toEqual({ pull_request: { types: ['opened', 'synchronize', 'reopened'] } });
    expect(wf.concurrency).toMatchObject({ 'cancel-in-progress': true });
    expect(wf.concurrency!.group).toContain('github.event.pull_request.number');
    const step = Object.values(wf.jobs!)[0]!.steps!.find(isPgperf)!;
    expect(step.with).toMatchObject({ 'comment-on': 'change' });
  });
});
