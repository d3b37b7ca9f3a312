/**
 * Runs the built action (dist/index.js) the way the GitHub runner runs it: INPUT_* variables, an event
 * payload file, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at the loopback fake
 * of the REST API (fake-github.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './cli.js';

export interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

export interface ActionStep {
  /** GITHUB_WORKSPACE (and the cwd); each step's files go to a fresh directory under it. */
  workspace: string;
  apiUrl: string;
  /** Every input, as action.yml would fill them. */
  inputs: Record<string, string>;
  event: unknown;
  eventName: string;
  /** GITHUB_RUN_ID (default 777): the same in every job of one workflow run. */
  runId?: string;
}

export async function runBuiltAction(step: ActionStep): Promise<ActionRun> {
  const dir = await mkdtemp(path.join(step.workspace, 'step-'));
  const eventPath = path.join(dir, 'event.json');
  const outputPath = path.join(dir, 'output');
  const summaryPath = path.join(dir, 'summary');
  await writeFile(eventPath, JSON.stringify(step.event));
  await writeFile(outputPath, '');
  await writeFile(summaryPath, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: step.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'pg/postgres',
    GITHUB_SHA: 'a'.repeat(40),
    GITHUB_RUN_ID: step.runId ?? '777',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: step.apiUrl,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_WORKSPACE: step.workspace,
    RUNNER_TEMP: dir,
  };
  for (const [k, v] of Object.entries(step.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/index.js')], { env, cwd: step.workspace });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (c) => resolve({ code: c, stdout: out }));
  });
  return {
    code,
    stdout,
    outputs: parseOutputs(await readFile(outputPath, 'utf8')),
    summary: await readFile(summaryPath, 'utf8'),
  };
}

/** GITHUB_OUTPUT's name<<delimiter format. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) outputs[m[1]!] = m[3]!;
  return outputs;
}
