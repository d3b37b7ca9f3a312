/**
 * Settings matrices (docs/workloads.md#settings-matrices): a workload's `matrix` sweeps server settings over
 * values as `clients` sweeps client counts. When the file is read, a workload with a matrix becomes one
 * workload per combination of values, named after them (`seqscan[io_method=sync,io_workers=3]`) and with
 * them in its `settings`, so the plan, the run loop, the comparison, the reports, the history series
 * (keyed by workload name), the gate and the store take each combination as a workload of its own, and the
 * check of what each arm's server knows (src/postgres/cluster/known-settings.ts) sees every value.
 */
import type { z } from 'zod';
import { rangeText, type Bound } from '../../core/bounds.js';
import { settingProblem } from '../../core/results/settings.js';

/** One value of a matrix list, as in `settings`. */
export type MatrixValue = string | number | boolean;

/** A workload's matrix: setting name -> the values it takes, in file order. */
export type SettingsMatrix = Record<string, MatrixValue[]>;

/**
 * Combinations of a matrix (the product of its lists' lengths). Each one is a workload of its own, so every
 * client count of it is a cell that every arm measures in every round and a member of the gate's Holm
 * family: 64 combinations of a 7-entry client sweep are already 448 cells a round, hours of measurement at
 * the shipped 20-second runs, and a Holm family in which a small change cannot be told from noise.
 */
export const MATRIX_COMBINATIONS: Bound = { min: 1, max: 64 };

/**
 * What a matrix value may look like: it becomes part of the workload's name, which reports, history
 * series, file names of profiles and `<workload>@<clients>` selectors carry, so no "/", ",", "=", "]",
 * "@", "|" or spaces. Enough for sizes (4MB), enums (io_uring), numbers (0.5, -1, 1e+21) and booleans.
 */
export const MATRIX_VALUE = /^[A-Za-z0-9._+-]+$/;

/** The words of MATRIX_VALUE in messages. */
const MATRIX_VALUE_WORDS = 'letters, digits, ".", "_", "+" and "-"';

/** The name of one combination: `seqscan[io_method=sync,io_workers=3]`. */
export function matrixCellName(name: string, combination: ReadonlyArray<[string, MatrixValue]>): string {
  return `${name}[${combination.map(([k, v]) => `${k}=${String(v)}`).join(',')}]`;
}

/**
 * Every combination of a matrix's values, the first setting outermost, each list in file order:
 * {a: [1, 2], b: [x, y]} gives a=1,b=x; a=1,b=y; a=2,b=x; a=2,b=y. O(combinations x settings): each
 * combination is read off its index as an odometer, never copied from a shorter one.
 */
export function matrixCombinations(matrix: SettingsMatrix): Array<Array<[string, MatrixValue]>> {
  const lists = Object.entries(matrix);
  const total = lists.reduce((n, [, values]) => n * values.length, 1);
  const combos: Array<Array<[string, MatrixValue]>> = [];
  for (let index = 0; index < total; index++) {
    const combination = new Array<[string, MatrixValue]>(lists.length);
    let rest = index;
    for (let i = lists.length - 1; i >= 0; i--) {
      const [name, values] = lists[i]!;
      combination[i] = [name, values[rest % values.length]!];
      rest = Math.floor(rest / values.length);
    }
    combos.push(combination);
  }
  return combos;
}

/**
 * A validated workload with a matrix as its combinations (see matrixCombinations for the order), each
 * named by matrixCellName, with the combination's values added to its `settings` and without `matrix`;
 * a workload without a matrix as itself, alone.
 *
 * @example expandMatrix({ name: 'ro', settings: { jit: 'off' }, matrix: { work_mem: ['4MB', '64MB'] } })
 *   // [{ name: 'ro[work_mem=4MB]', settings: { jit: 'off', work_mem: '4MB' } }, { name: 'ro[work_mem=64MB]', ... }]
 */
export function expandMatrix<
  W extends { name: string; settings: Record<string, MatrixValue>; matrix?: SettingsMatrix },
>(workload: W): W[] {
  const { matrix, ...plain } = workload;
  if (matrix === undefined) return [workload];
  return matrixCombinations(matrix).map(
    (combination) =>
      ({
        ...plain,
        name: matrixCellName(workload.name, combination),
        settings: { ...workload.settings, ...Object.fromEntries(combination) },
      }) as W,
  );
}

/**
 * The matrix's problems as schema issues at their paths (`matrix`, `matrix.<setting>`,
 * `matrix.<setting>[i]`), each message saying what is expected (the loader adds the file, line, column
 * and the bad value, clipped): no setting, an empty list, a value twice or one not fit for a name, a setting
 * the workload's `settings` also gives, a setting pgperf refuses, more combinations than MATRIX_COMBINATIONS
 * (said alone: the values of lists that long are not worth checking one by one). Linear in the values: a
 * value's first index is kept in a Map, never searched for.
 */
export function refineMatrix(
  w: { settings: Record<string, unknown>; matrix?: SettingsMatrix | undefined },
  ctx: z.core.$RefinementCtx,
): void {
  const matrix = w.matrix;
  if (matrix === undefined) return;
  const entries = Object.entries(matrix);
  if (entries.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['matrix'],
      message: 'expected at least one setting with its values, e.g. {io_method: [sync, worker]}',
    });
    return;
  }
  const combinations = entries.reduce((n, [, values]) => n * Math.max(values.length, 1), 1);
  if (combinations > MATRIX_COMBINATIONS.max) {
    ctx.addIssue({
      code: 'custom',
      path: ['matrix'],
      message: `expected ${rangeText(MATRIX_COMBINATIONS)} combinations of values, each a workload of its own (sweep fewer values, or split the matrix over workload files); these lists make ${productText(entries)}`,
    });
    return;
  }
  for (const [name, values] of entries) {
    const at = ['matrix', name];
    const nameProblem = settingProblem(name, '');
    if (nameProblem) {
      ctx.addIssue({ code: 'custom', path: at, message: nameProblem });
      continue;
    }
    if (Object.hasOwn(w.settings, name)) {
      ctx.addIssue({
        code: 'custom',
        path: at,
        message: `expected a setting not also given in settings (settings.${name} is ${JSON.stringify(w.settings[name])}; give it in one of the two)`,
      });
    }
    if (values.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: at,
        message: 'expected a non-empty list of values, e.g. [sync, worker]',
      });
      continue;
    }
    const firstAt = new Map<string, number>();
    values.forEach((v, i) => {
      const text = String(v);
      const problem = MATRIX_VALUE.test(text)
        ? settingProblem(name, text)
        : `expected a value made of ${MATRIX_VALUE_WORDS} (it becomes part of the workload's name)`;
      const first = firstAt.get(text);
      if (first === undefined) firstAt.set(text, i);
      if (problem) ctx.addIssue({ code: 'custom', path: [...at, i], message: problem });
      else if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [...at, i],
          message: `expected each value once in matrix.${name} (it is also matrix.${name}[${first}])`,
        });
      }
    });
  }
}

/** "2 x 3 x 50000 = 300000", the first lists' lengths only when there are many, the product spelled out. */
function productText(entries: ReadonlyArray<[string, MatrixValue[]]>): string {
  const SHOWN = 8;
  const lengths = entries.slice(0, SHOWN).map(([, v]) => String(v.length));
  if (entries.length > SHOWN) lengths.push(`... (${entries.length} lists)`);
  const product = entries.reduce((n, [, v]) => n * Math.max(v.length, 1), 1);
  return `${lengths.join(' x ')} = ${Number.isFinite(product) ? product : 'more than 10^308'}`;
}
