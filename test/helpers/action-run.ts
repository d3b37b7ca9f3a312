/**
 * Runs the built action (dist/index.js) the way the GitHub runner does: INPUT_* variables, an event payload
 * file, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at the fake API on 127.0.0.1.
 * With `source: true`, or PGPERF_TEST_CLI=src set for the whole test run, the source (src/index.ts through
 * tsx) runs instead, as the same kind of process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

export interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

export interface ActionRunOptions {
  /** The workspace (GITHUB_WORKSPACE, the cwd); each step gets a private directory inside it. */
  workspace: string;
  /** GITHUB_API_URL (the fake's url). */
  apiUrl: string;
  event: unknown;
  eventName: string;
  /** GITHUB_SHA. */
  sha: string;
  /** Extra environment, e.g. GITHUB_REF_NAME. */
  env?: NodeJS.ProcessEnv;
  /** Called with everything printed so far, at each new chunk: to act when the action reaches a point. */
  onOutput?: (soFar: string) => void;
  /** Called with the action's process once it is started (to signal it). */
  onStart?: (child: ChildProcess) => void;
  /** Run src/index.ts (through tsx) instead of dist/index.js. */
  source?: boolean;
}

/** Runs dist/index.js with `inputs` (each INPUT_<NAME>); resolves when the process exits. */
export async function runBuiltAction(
  inputs: Record<string, string>,
  options: ActionRunOptions,
): Promise<ActionRun> {
  const dir = await mkdtemp(path.join(options.workspace, 'step-'));
  const eventPath = path.join(dir, 'event.json');
  const outputPath = path.join(dir, 'output');
  const summaryPath = path.join(dir, 'summary');
  await writeFile(eventPath, JSON.stringify(options.event));
  await writeFile(outputPath, '');
  await writeFile(summaryPath, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'pg/postgres',
    GITHUB_SHA: options.sha,
    GITHUB_RUN_ID: '777',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: options.apiUrl,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_WORKSPACE: options.workspace,
    RUNNER_TEMP: dir,
    ...options.env,
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const entry =
      options.source || process.env.PGPERF_TEST_CLI === 'src'
        ? ['--import', import.meta.resolve('tsx'), path.join(root, 'src/index.ts')]
        : [path.join(root, 'dist/index.js')];
    const child = spawn(process.execPath, entry, { env, cwd: options.workspace });
    options.onStart?.(child);
    let out = '';
    const take = (d: Buffer) => {
      out += d.toString();
      options.onOutput?.(out);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
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
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) outputs[m[1]!] = m[3]!;
  return outputs;
}
