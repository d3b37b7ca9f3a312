/**
 * One decision, said the same everywhere: for a table of cases, every surface (the CLI's text, markdown
 * and JSON and its exit code; the built Action's step result, outputs, job summary, PR comment and commit
 * status) renders the decision that decide() made once, and the cell the status names is the cell the
 * headline names. The documents are seeded synthetic results (the decision path needs no server); the
 * CLI and the Action run as built, the Action against a loopback fake of the GitHub API.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headlineText, type Decision } from '../../src/core/compare/decision/decision.js';
import { consolidateShards } from '../../src/flows/consolidate/shard-merge.js';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { judgeConsolidation } from '../../src/flows/consolidate/consolidated-decision.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { escapeMarkdown } from '../../src/core/report/markdown-escape.js';
import { METRICS } from '../../src/core/results/metrics.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { runBuiltAction } from '../helpers/action-run.js';
import { runCli } from '../helpers/cli.js';
import { pullRequestEvent } from '../helpers/action-events.js';
import { useFakeGitHub } from '../helpers/fake-github-per-test.js';
import { syntheticRun, tpsAndP99Run } from '../../testkit/synthetic-run.js';
import { shardDocuments } from '../unit/fleet/shard-documents.js';

const PR = 7;
const HEAD_SHA = 'b'.repeat(40);
const prEvent = pullRequestEvent({ number: PR, headSha: HEAD_SHA, headRef: 'fix/x' });

/** Two cells, 3 rounds, a 2% slowdown: too few rounds to decide anything. */
const undecidedRun = () =>
  syntheticRun({
    seed: 3,
    rounds: 3,
    workloads: { tpcb: [1, 8] },
    effect: (arm) => (arm === 'head' ? 0.98 : 1),
  });

interface Case {
  name: string;
  result: () => RunResult;
  failOn?: 'regression' | 'inconclusive' | 'never';
  expect: Partial<Pick<Decision, 'verdict' | 'outcome' | 'exitCode'>> & { lead?: RegExp; cell?: string };
}

const cases: Case[] = [
  {
    name: 'a regression in one cell only',
    result: () =>
      syntheticRun({
        seed: 1,
        rounds: 8,
        workloads: { tpcb: [1, 8, 64] },
        effect: (arm, _, clients) => (arm === 'head' && clients === 64 ? 0.88 : 1),
      }),
    expect: {
      verdict: 'regression',
      outcome: 'failed',
      exitCode: 1,
      lead: /^1 regression$/,
      cell: 'tpcb@64',
    },
  },
  {
    name: 'a regression in latency only',
    result: () => tpsAndP99Run((clients) => ({ tps: 1, p99: clients === 8 ? 1.3 : 1 })),
    expect: { verdict: 'regression', outcome: 'failed', exitCode: 1, lead: /^1 regression$/, cell: 'w@8' },
  },
  {
    name: 'an improvement and a regression in two workloads',
    result: () =>
      syntheticRun({
        seed: 2,
        rounds: 8,
        workloads: { reads: [4], writes: [4] },
        effect: (arm, workload) => (arm !== 'head' ? 1 : workload === 'reads' ? 1.1 : 0.9),
      }),
    expect: {
      verdict: 'mixed',
      outcome: 'failed',
      exitCode: 1,
      lead: /^1 regression, 1 improvement$/,
      cell: 'writes@4',
    },
  },
  {
    name: 'all inconclusive',
    result: undecidedRun,
    expect: {
      verdict: 'inconclusive',
      outcome: 'pending',
      exitCode: 0,
      lead: /^Inconclusive: 2 of 2 cells undecided$/,
    },
  },
  {
    name: 'all inconclusive, under fail-on inconclusive',
    failOn: 'inconclusive',
    result: undecidedRun,
    expect: {
      verdict: 'inconclusive',
      outcome: 'failed',
      exitCode: 1,
      lead: /^2 undecided cells \(fail-on inconclusive\)$/,
    },
  },
  {
    name: 'an incomplete run',
    result: () => {
      const r = syntheticRun({
        seed: 4,
        rounds: 8,
        workloads: { tpcb: [1, 8] },
        effect: (arm) => (arm === 'head' ? 0.9 : 1),
      });
      r.status = 'interrupted';
      r.stopReason = 'SIGTERM after round 8';
      return r;
    },
    expect: { verdict: 'inconclusive', outcome: 'incomplete', exitCode: 3, lead: /^Incomplete$/ },
  },
  {
    name: 'a regression in a workload whose own policy never fails',
    result: () => {
      const r = syntheticRun({
        seed: 5,
        rounds: 8,
        workloads: { explore: [4], gate: [4] },
        effect: (arm, workload) => (arm === 'head' && workload === 'explore' ? 0.9 : 1),
      });
      (r.workloads.explore as { failOn?: string }).failOn = 'never';
      return r;
    },
    expect: { verdict: 'regression', outcome: 'passed', exitCode: 0, lead: /not gating/, cell: 'explore@4' },
  },
];

let tmp: string;
const fake = useFakeGitHub();

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-surfaces-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The first cell of the decision, as the status's short form names it ("w@8 latency p99"). */
function statusNames(d: Decision): string {
  const c = d.cells.find((x) => x.failsGate) ?? d.cells[0]!;
  return `${c.id} ${METRICS[c.metric].label}`;
}

describe('one decision on every surface', () => {
  it.each(cases)('$name', async (c) => {
    const result = c.result();
    const failOn = c.failOn ?? 'regression';
    const decision = decideRun(result, analyse(result), failOn);
    expect(decision).toMatchObject({
      verdict: c.expect.verdict,
      outcome: c.expect.outcome,
      exitCode: c.expect.exitCode,
    });
    if (c.expect.lead) expect(decision.headline.lead).toMatch(c.expect.lead);
    if (c.expect.cell) expect(decision.cells[0]!.id).toBe(c.expect.cell);
    if (decision.outcome === 'failed' || decision.outcome === 'pending') {
      // The status names the cell and metric the headline names first.
      const named = statusNames(decision);
      expect(decision.status.description).toContain(named);
      const first =
        decision.outcome === 'failed'
          ? decision.cells.find((x) => x.failsGate)!
          : decision.cells.find((x) => x.verdict === 'inconclusive')!;
      expect(decision.headline.detail).toContain(`${first.workload} at ${first.clients} client`);
      expect(decision.headline.detail).toContain(METRICS[first.metric].label);
    }
    expect(decision.status.description.length).toBeLessThanOrEqual(140);

    const dir = path.join(tmp, c.name.replace(/\W+/g, '-'));
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'results.json');
    await writeFile(file, JSON.stringify(result));

    // The CLI: text, markdown, JSON, each with the decision's exit code.
    const text = await runCli(['compare', file, '--fail-on', failOn]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(decision.exitCode);
    expect(text.stdout.split('\n')[0]).toBe(`${decision.outcome.toUpperCase()}: ${headlineText(decision)}`);
    const markdown = await runCli(['compare', file, '--format', 'markdown', '--fail-on', failOn]);
    expect(markdown.code).toBe(decision.exitCode);
    const mdHeadline = markdown.stdout.split('\n')[1]!;
    expect(mdHeadline).toContain(`**${escapeMarkdown(decision.headline.lead)}**`);
    expect(mdHeadline).toContain(escapeMarkdown(decision.headline.detail));
    const json = await runCli(['compare', file, '--format', 'json', '--fail-on', failOn]);
    expect(json.code).toBe(decision.exitCode);
    expect((JSON.parse(json.stdout) as { decision: Decision }).decision).toEqual(decision);

    // The Action, comment mode on the same document: step, outputs, summary, comment and status.
    const workspace = path.join(dir, 'ws');
    await mkdir(path.join(workspace, 'res'), { recursive: true });
    await writeFile(path.join(workspace, 'res', 'results.json'), JSON.stringify(result));
    const ran = await runBuiltAction(
      {
        mode: 'comment',
        'results-dir': 'res',
        'fail-on': failOn,
        'github-token': 'test-token',
        comment: 'true',
        'comment-id': 'default',
        'commit-status': 'true',
      },
      { workspace, apiUrl: fake.gh.url, event: prEvent, eventName: 'pull_request', sha: HEAD_SHA },
    );
    expect(ran.code).toBe(decision.failure === undefined ? 0 : 1);
    // Workflow commands escape %, CR and LF (@actions/core); the runner shows the text decoded.
    const decoded = ran.stdout.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
    if (decision.failure !== undefined) expect(decoded).toContain(`::error::${decision.failure}`);
    expect(ran.outputs).toMatchObject({ verdict: decision.verdict, outcome: decision.outcome });
    expect(JSON.parse(await readFile(ran.outputs['decision-json']!, 'utf8'))).toEqual(decision);
    expect(ran.summary.split('\n')[0]).toBe(mdHeadline);
    const comments = fake.gh.comments.get(PR) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.split('\n')[1]).toBe(mdHeadline);
    expect(fake.gh.statuses.at(-1)).toMatchObject(decision.status);
  });

  it('a missing shard: the consolidation is incomplete on every surface', async () => {
    const shards = shardDocuments(3).slice(0, 2);
    const judged = judgeConsolidation(consolidateShards(shards));
    const { decision } = judged;
    expect(decision).toMatchObject({ outcome: 'incomplete', exitCode: 3, verdict: 'inconclusive' });
    expect(decision.incomplete).toBe('shard 3 of 3 missing');
    const dir = path.join(tmp, 'shards');
    await mkdir(dir, { recursive: true });
    const files: string[] = [];
    for (const [i, s] of shards.entries()) {
      const f = path.join(dir, `shard-${i + 1}.json`);
      await writeFile(f, JSON.stringify(s.result));
      files.push(f);
    }
    const text = await runCli(['consolidate', ...files]);
    expect(text.code).toBe(3);
    expect(text.stdout.split('\n')[0]).toMatch(/^INCOMPLETE: Incomplete: shard 3 of 3 missing; /);
    const json = await runCli(['consolidate', ...files, '--format', 'json']);
    expect(json.code).toBe(3);
    expect((JSON.parse(json.stdout) as { decision: Decision }).decision).toEqual(decision);
    const markdown = await runCli(['consolidate', ...files, '--format', 'markdown']);
    expect(markdown.stdout.split('\n')[1]).toMatch(/^⚠️ \*\*Incomplete\*\*: shard 3 of 3 missing; /);
    const lenient = await runCli(['consolidate', ...files, '--fail-on', 'never']);
    expect(lenient.code).toBe(0);
  });
});
