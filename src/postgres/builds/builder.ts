/**
 * Building a checked-out tree: a strategy per build system (meson + ninja where the tree has
 * meson.build, i.e. PostgreSQL 16 and later; ./configure + make otherwise), chosen by a small factory.
 * Every step's output goes to the build's log file; a failing step throws a BuildStepError that names
 * the step, shows the tail of its output and points at the full log. Each step runs the tree's own code:
 * as root, pgperf runs it as the unprivileged run-as user (StepContext.user, build-user.ts).
 */
import { appendFile, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import { describeExit, tail, type ChildUser, type ProcessRunner } from '../../machine/os/process.js';
import { packagesMissingFromLog } from './deps.js';
import { configureOptions, mesonOptions, parseMesonOptionNames, type BuildSystem } from './build-options.js';

export type BuildStep = 'fetch' | 'patch' | 'configure' | 'compile' | 'install';

/** A build that failed at a named step; the message has the output's tail and the log file. */
export class BuildStepError extends UserError {
  constructor(
    readonly step: BuildStep,
    message: string,
    readonly logFile?: string,
  ) {
    super(message);
    this.name = 'BuildStepError';
  }
}

/** Lines of a failing step's output shown in the error. */
const TAIL_LINES = 25;

export interface StepContext {
  /** Names the build in messages ("head"). */
  what: string;
  srcDir: string;
  buildDir: string;
  /** DESTDIR of the install step; the tree lands in `<stageDir>/<prefix>`. */
  stageDir: string;
  prefix: string;
  /** Environment of every step (compiler, ccache). */
  env: NodeJS.ProcessEnv;
  jobs: number;
  logFile: string;
  runner: ProcessRunner;
  signal?: AbortSignal;
  /**
   * Who runs the steps: as root, the unprivileged run-as user (build-user.ts), since they run the tree's
   * own code; undefined: pgperf's own user.
   */
  user?: ChildUser;
}

export interface BuildStrategy {
  readonly system: BuildSystem;
  /** The full configure / meson setup option list for this tree. */
  options(ctx: StepContext, extra: readonly string[]): Promise<string[]>;
  configure(ctx: StepContext, options: readonly string[]): Promise<void>;
  compile(ctx: StepContext): Promise<void>;
  install(ctx: StepContext): Promise<void>;
}

/** meson + ninja, out of tree in `buildDir`. */
export const mesonStrategy: BuildStrategy = {
  system: 'meson',
  async options(ctx, extra) {
    let text = '';
    for (const name of ['meson_options.txt', 'meson.options']) {
      text += await readFile(path.join(ctx.srcDir, name), 'utf8').catch(() => '');
    }
    return mesonOptions({ prefix: ctx.prefix, extra, available: parseMesonOptionNames(text) });
  },
  async configure(ctx, options) {
    await runStep(ctx, 'configure', 'meson', ['setup', ctx.buildDir, ctx.srcDir, ...options], ctx.srcDir);
  },
  async compile(ctx) {
    await runStep(ctx, 'compile', 'ninja', ['-C', ctx.buildDir, `-j${ctx.jobs}`], ctx.srcDir);
  },
  async install(ctx) {
    await runStep(
      ctx,
      'install',
      'meson',
      ['install', '-C', ctx.buildDir, '--no-rebuild', '--quiet', '--destdir', ctx.stageDir],
      ctx.srcDir,
    );
  },
};

/** ./configure + make, in tree; builds and installs the server, client programs and contrib. */
export const autoconfStrategy: BuildStrategy = {
  system: 'autoconf',
  async options(ctx, extra) {
    return configureOptions({ prefix: ctx.prefix, extra });
  },
  async configure(ctx, options) {
    await runStep(ctx, 'configure', './configure', [...options], ctx.srcDir);
  },
  async compile(ctx) {
    await runStep(ctx, 'compile', 'make', [`-j${ctx.jobs}`, 'world-bin'], ctx.srcDir);
  },
  async install(ctx) {
    await runStep(ctx, 'install', 'make', ['-s', 'install-world-bin', `DESTDIR=${ctx.stageDir}`], ctx.srcDir);
  },
};

/**
 * meson where the tree has meson.build (16+), configure otherwise; refuses what is not PostgreSQL.
 * `has` says whether the tree has a top-level file (asked of the commit, before any checkout).
 */
export async function chooseStrategy(
  has: (file: string) => Promise<boolean>,
  what: string,
): Promise<BuildStrategy> {
  if (await has('meson.build')) return mesonStrategy;
  if (await has('configure')) return autoconfStrategy;
  throw new UserError(
    `${what}: the tree has neither meson.build nor configure: not a PostgreSQL source tree (check --repo and the ref)`,
  );
}

/**
 * Runs one step with its output appended to the log file (streamed, so a long compile can be followed
 * with `tail -f`). On failure: the step, how it ended, what is missing if the output says so, the
 * output's tail, and the log file.
 */
export async function runStep(
  ctx: StepContext,
  step: BuildStep,
  command: string,
  args: string[],
  cwd: string,
): Promise<void> {
  const line = [command, ...args].join(' ');
  await appendFile(ctx.logFile, `\n==> ${step}: ${line}\n    (in ${cwd})\n`);
  const start = (await stat(ctx.logFile)).size;
  // The shell only redirects; the command and its arguments are passed through "$@" unquoted-safe.
  const res = await ctx.runner.run(
    'sh',
    ['-c', 'exec "$@" >>"$PGPERF_BUILD_LOG" 2>&1', 'sh', command, ...args],
    {
      cwd,
      env: { ...ctx.env, PGPERF_BUILD_LOG: ctx.logFile },
      signal: ctx.signal,
      ...(ctx.user ? { uid: ctx.user.uid, gid: ctx.user.gid } : {}),
    },
  );
  await appendFile(
    ctx.logFile,
    `==> ${step}: ${describeExit(res)} after ${(res.durationMs / 1000).toFixed(1)} s\n`,
  );
  if (res.exitCode === 0) return;
  ctx.signal?.throwIfAborted();
  const output = (await readFile(ctx.logFile, 'utf8').catch(() => '')).slice(start);
  throw new BuildStepError(
    step,
    stepFailureMessage({ what: ctx.what, step, line, res: describeExit(res), output, logFile: ctx.logFile }),
    ctx.logFile,
  );
}

/** The message of a failed step (pure, for tests). */
export function stepFailureMessage(input: {
  what: string;
  step: BuildStep;
  line: string;
  res: string;
  output: string;
  logFile: string;
}): string {
  const hints: string[] = [];
  const packages = packagesMissingFromLog(input.output);
  if (packages.length) hints.push(`missing build dependencies: apt-get install ${packages.join(' ')}`);
  if (/No space left on device/i.test(input.output)) {
    hints.push('the disk is full: free space or pass --cache-dir DIR on a larger disk');
  }
  return (
    `${input.what}: ${input.step} failed (${input.res}): ${input.line}\n` +
    (hints.length ? `${hints.join('; ')}\n` : '') +
    `--- last lines of its output ---\n${tail(input.output, TAIL_LINES)}\n--- full log: ${input.logFile}`
  );
}
