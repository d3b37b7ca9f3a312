/**
 * The "Reproduce" block: the exact commands that re-measure a decided cell on a hacker's own machine with
 * the CLI: the workload as it ran (defaults applied, narrowed to the cell's client counts, in the words of
 * a workload file, so that `pgperf run` loads it as the same workload) written to a file, and one `pgperf run` with the same commits, patches, seed, threshold, α, round budget and
 * spending, pass α and confirmation rounds. Computed
 * from the results document alone, so `pgperf compare` on a downloaded results.json shows the same block.
 */
import { stringify } from 'yaml';
import type { RunResult } from '../results/result-types.js';
import { shellWord } from '../util/shell-word.js';
import { DEFAULT_CONFIRM_ROUNDS } from '../compare/analysis/confirmation.js';
import { WORKLOAD_NAME_LENGTH } from '../bounds.js';
import { stableHash } from '../util/stable-hash.js';

/** The cells of one workload to reproduce. */
export interface ReproduceTarget {
  workload: string;
  clients: number[];
}

export interface Reproduction {
  workload: string;
  clients: number[];
  /** The file the script writes (the workload, narrowed). */
  file: string;
  /** Shell lines: the heredoc that writes `file`, then the pgperf command. */
  script: string;
  /** Script files the workload names, to copy beside `file` (the runner's paths are not the reader's). */
  scriptFiles: string[];
}

export interface ReproduceOptions {
  /**
   * The longest line the workload's YAML may have, e.g. a mail's 72 columns (workloadYaml); default the
   * yaml library's own folding at 80, as the PR comment has it.
   */
  width?: number;
}

/** One reproduction per target whose workload the results document records. */
export function reproductions(
  result: RunResult,
  targets: readonly ReproduceTarget[],
  options: ReproduceOptions = {},
): Reproduction[] {
  return targets.flatMap((t) => {
    const recorded = result.workloads[t.workload];
    if (recorded === null || typeof recorded !== 'object') return [];
    const { workload, scriptFiles } = narrowed(recorded as Record<string, unknown>, t.clients);
    const file = reproduceFileName(t.workload);
    const yaml = workloadYaml(workload, options.width);
    const marker = uniqueMarker(yaml);
    const script = [
      `cat > ${shellWord(file)} <<'${marker}'`,
      yaml,
      marker,
      runCommand(result, file)
        .map((words) => words.join(' '))
        .join(' \\\n  '),
    ].join('\n');
    return [{ workload: t.workload, clients: t.clients, file, script, scriptFiles }];
  });
}

/**
 * The longest workload part of a Reproduce file name: twice the longest name a workload file may give, room
 * for a settings matrix's combination, and far inside the 255 bytes a file name may have on most file systems.
 */
const MAX_FILE_STEM = 2 * WORKLOAD_NAME_LENGTH.max;

/**
 * The file a Reproduce block writes: `reproduce-<workload>.yml`, the name's other characters as "_". A longer
 * name (a matrix combination of many settings, a results document from elsewhere) is cut and told apart by a
 * hash of the whole name, so that the script never fails with "File name too long".
 */
export function reproduceFileName(workload: string): string {
  const safe = workload.replace(/[^A-Za-z0-9_.-]/g, '_');
  const hash = stableHash(workload);
  const stem =
    safe.length <= MAX_FILE_STEM ? safe : `${safe.slice(0, MAX_FILE_STEM - hash.length - 1)}-${hash}`;
  return `reproduce-${stem}.yml`;
}

/** Narrower folding widths tried below `width`: the yaml library counts a line's width after its indentation. */
const WIDTH_STEPS = [0, 4, 8, 12, 16, 20, 24];

/**
 * The workload as YAML. With `width`, every line fits it: folded at spaces first; where a word is too long
 * for that (a long name or path), its strings are written double-quoted, which YAML folds inside a word
 * (an escaped line break), then its keys too. The same document either way.
 */
function workloadYaml(workload: Record<string, unknown>, width?: number): string {
  if (width === undefined) return stringify(workload).trimEnd();
  const styles = [
    {},
    { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' },
    { defaultStringType: 'QUOTE_DOUBLE' },
  ] as const;
  let yaml = '';
  for (const style of styles) {
    for (const step of WIDTH_STEPS) {
      yaml = stringify(workload, { ...style, lineWidth: width - step, minContentWidth: 0 }).trimEnd();
      if (yaml.split('\n').every((line) => line.length <= width)) return yaml;
    }
  }
  return yaml;
}

/**
 * The workload as it ran, with only the given client counts and script paths made local (basenames), in
 * the words of a workload file (fileForm): what the loader reads back as the same workload.
 */
function narrowed(
  recorded: Record<string, unknown>,
  clients: number[],
): { workload: Record<string, unknown>; scriptFiles: string[] } {
  const workload: Record<string, unknown> = fileForm({ ...recorded, clients });
  const scriptFiles: string[] = [];
  if (Array.isArray(recorded.scripts)) {
    workload.scripts = recorded.scripts.map((s: unknown) => {
      const script = s as { file?: unknown };
      if (typeof script.file !== 'string') return s;
      const base = basename(script.file);
      scriptFiles.push(base);
      return { ...script, file: base };
    });
  }
  return { workload, scriptFiles };
}

/**
 * A recorded workload as a workload file says it. The results keep the workload as the loader resolved
 * it, and two fields differ from what a file may write:
 * - `instructions` is recorded with its threshold as `thresholdPct` (InstructionSettings); a file names it
 *   `threshold`.
 * - one combination of a settings matrix is recorded under its combination's name, `mx[a=1,b=on]` (which
 *   the name rule refuses), its values in `settings`; a file writes the base name and a matrix of one value
 *   per setting, `name: mx`, `matrix: {a: [1], b: [on]}`, which the loader expands to that one
 *   combination, named as it was (src/drivers/common/settings-matrix.ts).
 */
function fileForm(recorded: Record<string, unknown>): Record<string, unknown> {
  const instructions = instructionsFileForm(recorded.instructions);
  const combination = matrixCombination(recorded);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(recorded)) {
    if (key === 'name' && combination) out.name = combination.name;
    else if (key === 'instructions') out.instructions = instructions;
    else if (key === 'settings' && combination) {
      out.settings = combination.settings;
      out.matrix = combination.matrix;
    } else out[key] = value;
  }
  return out;
}

/** Recorded instruction settings ({..., thresholdPct}) as a file's ({..., threshold}); anything else as it is. */
function instructionsFileForm(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const { thresholdPct, ...rest } = value as Record<string, unknown>;
  return thresholdPct === undefined ? rest : { ...rest, threshold: thresholdPct };
}

/**
 * The matrix combination a recorded workload is, from its name `base[k=v,...]` and its settings: the base
 * name, the settings without the combination's, and the matrix of the combination's values (as typed in
 * settings). Undefined when the name is not a combination's or the settings do not hold its values.
 */
function matrixCombination(
  recorded: Record<string, unknown>,
): { name: string; settings: Record<string, unknown>; matrix: Record<string, unknown[]> } | undefined {
  const { name, settings } = recorded;
  if (typeof name !== 'string' || settings === null || typeof settings !== 'object') return undefined;
  const m = /^(.+)\[([^[\]]+)\]$/.exec(name);
  if (!m) return undefined;
  const rest: Record<string, unknown> = { ...(settings as Record<string, unknown>) };
  const matrix: Record<string, unknown[]> = {};
  for (const pair of m[2]!.split(',')) {
    const eq = pair.indexOf('=');
    const [setting, text] = [pair.slice(0, eq), pair.slice(eq + 1)];
    if (eq <= 0 || !Object.hasOwn(rest, setting) || String(rest[setting]) !== text) return undefined;
    matrix[setting] = [rest[setting]];
    delete rest[setting];
  }
  return { name: m[1]!, settings: rest, matrix };
}

/** The `pgperf run` command, one flag and its value per line. */
function runCommand(result: RunResult, file: string): string[][] {
  const lines: string[][] = [['pgperf', 'run']];
  const [base, ...heads] = result.arms;
  const builds = result.arms.map((a) => a.build);
  // A results file may come from elsewhere (`pgperf compare`): only a whole build record names commits.
  const built = builds.every((b) => typeof b?.repo === 'string' && typeof b.sha === 'string');
  if (base && heads.length === 1 && heads[0]!.label === 'head' && built) {
    const [b, h] = [builds[0]!, builds[1]!];
    lines.push(['--repo', repoOf(b.repo, result)], ['--base', b.sha], ['--head', h.sha]);
    for (const p of b.patches ?? []) lines.push(['--base-patch', basename(p.file)]);
    for (const p of h.patches ?? []) lines.push(['--head-patch', basename(p.file)]);
  } else {
    // Bin dirs the runner was given (or several heads): the reader points these at installs of their own.
    for (const a of result.arms) lines.push(['--arm', `${a.label}=${a.binDir}`]);
  }
  for (const a of result.arms) {
    for (const [name, value] of Object.entries(a.settingOverrides)) {
      lines.push(['--set', `${a.label}:${name}=${value}`]);
    }
  }
  lines.push(['--workload', file], ['--seed', String(result.plan.seed)], ['--order', result.plan.order]);
  if (result.analysis) {
    lines.push(
      ['--threshold', String(result.analysis.thresholdPct)],
      ['--alpha', String(result.analysis.alpha)],
    );
    if (result.analysis.metric !== 'tps') lines.push(['--metric', result.analysis.metric]);
  }
  if (result.adaptive) {
    const plan = result.adaptive.plan;
    lines.push(['--max-rounds', String(plan.maxRounds)]);
    lines.push(['--schedule', plan.schedule.join(',')]);
    lines.push(['--spending', plan.spending]);
    // Plans written before the pass question had its own α passed at `alpha`.
    lines.push(['--pass-alpha', String(plan.passAlphaTotal ?? plan.alpha)]);
  }
  // A block that ran says how many rounds it had (0 or the default leave no trace to repeat).
  if (result.confirmation && result.confirmation.rounds !== DEFAULT_CONFIRM_ROUNDS) {
    lines.push(['--confirm-rounds', String(result.confirmation.rounds)]);
  }
  return lines.map((words) => words.map(shellWord));
}

function basename(file: string): string {
  return file.split('/').pop()!;
}

/** A git URL for the repository: the build's, else the GitHub repository the run recorded. */
function repoOf(buildRepo: string, result: RunResult): string {
  if (/^[a-z+]+:\/\//i.test(buildRepo) || buildRepo.startsWith('git@')) return buildRepo;
  const gh = result.source?.repository;
  return gh && /^[\w.-]+\/[\w.-]+$/.test(gh) ? `https://github.com/${gh}.git` : buildRepo;
}

/** A heredoc end marker that no line of the text equals. */
function uniqueMarker(text: string): string {
  const lines = new Set(text.split('\n'));
  let marker = 'PGPERF_WORKLOAD';
  while (lines.has(marker)) marker += '_';
  return marker;
}
