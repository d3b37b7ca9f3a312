/**
 * Changed code not executed, no rounds: when the compiled-code comparison lists every difference between a
 * head's install and base's as functions of the server (src/postgres/builds/compiled-code.ts), the head runs
 * with base's settings, and a workload's counting servers (src/run/counted/instruction-phase.ts) executed
 * none of those functions, nothing the workload runs changed: only where the code lies in memory (the
 * layout) did. Such a workload's cells of that head are decided "no change (changed code not executed)"
 * without timed rounds; the message names the functions and says that placement can still move timings.
 *
 * Not applied (the cells are measured) when anything else differs (another file, data of the server
 * binary only), the list was cut, the workload's counts or profiles are missing, or its counts moved beyond
 * their threshold (the work changed after all). The pipeline skips the timed rounds of a workload whose
 * every head is decided so; this module turns the cells into that decision, so every surface renders it.
 */
import { redecidedArm } from './redecided-arm.js';
import type { ArmInfo, CompiledCodeComparison, RunResult } from '../../results/result-types.js';
import type { ChangedCodeRun, InstructionsRecord } from '../../results/instructions.js';
import { overallVerdict } from '../overall.js';
import { hypothesisLabel } from './analysis.js';
import { judgeInstructionCell } from '../evidence/instruction-rule.js';
import { settingsKey, unchangedHeads } from '../../results/unchanged-heads.js';
import type { CellComparison, RunComparison } from '../comparison-types.js';

/** The only file whose differences the comparison can list function by function. */
const SERVER_BINARY = 'bin/postgres';
/** Names in a cell's message (the compiled-code line of every report names them too). */
const NAMED = 8;

/**
 * True when the comparison lists every difference as changed server functions: bin/postgres is the only
 * file that differs, at least one of its functions changed, and every changed name is kept.
 */
export function listsEveryDifference(c: CompiledCodeComparison): boolean {
  const f = c.serverFunctions;
  return (
    !c.unknown &&
    !c.identical &&
    c.differingCount === 1 &&
    c.differingFiles[0] === SERVER_BINARY &&
    f?.all !== undefined &&
    f.changedCount > 0 &&
    f.all.length === f.changedCount
  );
}

/** One head's workload decided by its changed code not running. */
export interface UnexecutedCode {
  head: string;
  workload: string;
  /** Every function head changed. */
  changed: readonly string[];
  /** Those of them changed only in immediates (a `__LINE__`), as far as the comparison names them. */
  immediatesOnly: readonly string[];
}

/** What the rule reads: the arms (label, per-arm settings; the first is base), the code, the counts. */
export interface UnexecutedInput {
  arms: ReadonlyArray<{ label: string; settings: Readonly<Record<string, string>> }>;
  compiledCode: readonly CompiledCodeComparison[] | undefined;
  instructions: InstructionsRecord | undefined;
  /**
   * The timed cells: a workload is decided only at client counts its counted runs had (1 client by
   * default). Code a workload runs only under concurrency (an LWLock's wait queue, a spin delay, a lock
   * manager's wake-ups) never runs at 1 client, so at more clients nothing vouches for the workload.
   */
  cells: ReadonlyArray<{ workload: string; clients: number }>;
}

/** Every (head, workload) whose counted runs executed none of the head's changed functions (see above). */
export function unexecutedChangedCode(input: UnexecutedInput): UnexecutedCode[] {
  const { arms, compiledCode, instructions } = input;
  const [base] = arms;
  if (!base || !compiledCode || !instructions?.changedCode) return [];
  return instructions.changedCode.flatMap((run) => {
    const code = compiledCode.find((c) => c.head === run.head);
    const arm = arms.find((a) => a.label === run.head);
    if (!code || !arm || !listsEveryDifference(code)) return [];
    if (settingsKey(arm.settings) !== settingsKey(base.settings)) return [];
    if (!countedAlike(instructions, run, base.label)) return [];
    if (!timedAsCounted(input.cells, instructions, run.workload)) return [];
    const f = code.serverFunctions!;
    return [
      { head: run.head, workload: run.workload, changed: f.all!, immediatesOnly: f.immediatesOnly ?? [] },
    ];
  });
}

/** Every timed cell of the workload has a client count its counted runs had. */
function timedAsCounted(
  cells: UnexecutedInput['cells'],
  record: InstructionsRecord,
  workload: string,
): boolean {
  const counted = new Set(record.samples.filter((s) => s.workload === workload).map((s) => s.clients));
  const timed = cells.filter((c) => c.workload === workload);
  return timed.length > 0 && timed.every((c) => counted.has(c.clients));
}

/**
 * The run's record says none of the changed functions ran, the workload was counted in both arms with no
 * failure, and the counts did not move beyond their threshold (a change there contradicts "not executed";
 * bistable counts, which the layout explains, do not count).
 */
function countedAlike(record: InstructionsRecord, run: ChangedCodeRun, base: string): boolean {
  if (run.executedCount !== 0 || run.executed.length !== 0) return false;
  if (record.failures.some((f) => f.workload === run.workload)) return false;
  const counted = record.samples.filter((s) => s.workload === run.workload);
  const cells = [...new Set(counted.map((s) => s.clients))];
  const arms = new Set(counted.map((s) => s.arm));
  if (cells.length === 0 || !arms.has(base) || !arms.has(run.head)) return false;
  return cells.every((clients) => {
    const { judged, bistable } = judgeInstructionCell(
      record,
      { workload: run.workload, clients },
      base,
      run.head,
    );
    // Bistable counts (an arm split in two groups from start to start: layout) are no evidence either way.
    return bistable.length > 0 || (judged.verdict !== 'regression' && judged.verdict !== 'improvement');
  });
}

/**
 * The workloads no head needs timed rounds for: each head runs base's code (same-code.ts) or none of its
 * changed code in that workload. Empty when a head has no compiled-code comparison.
 */
export function untimedWorkloads(input: UnexecutedInput, workloads: readonly string[]): string[] {
  const heads = input.arms.slice(1).map((a) => a.label);
  if (heads.length === 0) return [];
  const same = new Set(unchangedHeads(input.compiledCode, input.arms).map((c) => c.head));
  const unexecuted = unexecutedChangedCode(input);
  return workloads.filter((w) =>
    heads.every((h) => same.has(h) || unexecuted.some((u) => u.head === h && u.workload === w)),
  );
}

/** unexecutedChangedCode of a results document. */
export function unexecutedChangedCodeOf(
  result: Pick<RunResult, 'arms' | 'compiledCode' | 'instructions' | 'plan'>,
): UnexecutedCode[] {
  return unexecutedChangedCode({
    arms: result.arms.map((a: ArmInfo) => ({ label: a.label, settings: a.settingOverrides })),
    compiledCode: result.compiledCode,
    instructions: result.instructions,
    cells: result.plan.cells,
  });
}

/** untimedWorkloads of a results document. */
export function untimedWorkloadsOf(
  result: Pick<RunResult, 'arms' | 'compiledCode' | 'instructions' | 'workloads' | 'plan'>,
): string[] {
  return untimedWorkloads(
    {
      arms: result.arms.map((a: ArmInfo) => ({ label: a.label, settings: a.settingOverrides })),
      compiledCode: result.compiledCode,
      instructions: result.instructions,
      cells: result.plan.cells,
    },
    Object.keys(result.workloads),
  );
}

/**
 * The names, at most `shown`, those changed only in immediates said so: "f1, f2", "f1; only in immediates,
 * e.g. __LINE__: f2, f3" or "f2, f3; each changed only in immediates, e.g. __LINE__".
 */
function functionList(names: readonly string[], immediatesOnly: readonly string[], shown: number): string {
  const immediate = new Set(immediatesOnly);
  const rewritten = names.filter((n) => !immediate.has(n));
  const immediates = names.filter((n) => immediate.has(n));
  const list = (xs: readonly string[], room: number) =>
    `${xs.slice(0, room).join(', ')}${xs.length > room ? `, … (${(xs.length - room).toLocaleString('en-US')} more)` : ''}`;
  if (immediates.length === 0) return list(rewritten, shown);
  if (rewritten.length === 0)
    return `${list(immediates, shown)}; each changed only in immediates, e.g. __LINE__`;
  const room = Math.max(1, shown - rewritten.length);
  return `${list(rewritten, shown)}; only in immediates, e.g. __LINE__: ${list(immediates, room)}`;
}

/**
 * "none of the 3 changed functions (f1; only in immediates, e.g. __LINE__: int4pl, int4mi) ran in the
 * counted runs; code placement can still move timings": the reason's sentence.
 */
export function unexecutedMessage(u: UnexecutedCode): string {
  const n = u.changed.length;
  const what = `${n === 1 ? 'the' : `none of the ${n.toLocaleString('en-US')}`} changed function${n === 1 ? '' : 's'}`;
  const ran = n === 1 ? 'did not run' : 'ran';
  return `${what} (${functionList(u.changed, u.immediatesOnly, NAMED)}) ${ran} in the counted runs; code placement can still move timings`;
}

/**
 * The phase's note on one head's changed functions in a workload: those that ran (the changed code a
 * timing could come from), or none of them.
 */
export function changedCodeNote(run: ChangedCodeRun, immediatesOnly: readonly string[] = []): string {
  const n = run.changedCount;
  const of = `of the ${n.toLocaleString('en-US')} function${n === 1 ? '' : 's'} whose code ${run.head} changed`;
  if (run.executedCount === 0)
    return `${run.workload}: none ${of} ran in its counted runs (only code placement can move its timings)`;
  return `${run.workload}: ${run.executedCount.toLocaleString('en-US')} ${of} ran in its counted runs: ${functionList(run.executed, immediatesOnly, NAMED)}`;
}

/** True when the cell was decided by its head's changed code not running in its workload. */
export function decidedByUnexecutedCode(cell: Pick<CellComparison, 'reasons'>): boolean {
  return cell.reasons.some((r) => r.code === 'changed-code-not-executed');
}

/**
 * The comparison with the cells of every (head, workload) of unexecutedChangedCode decided "no change
 * (changed code not executed)", where head has no timed sample of the workload (a workload measured for
 * another head is judged on its measurements).
 */
export function withUnexecutedCode(given: RunComparison, result: RunResult): RunComparison {
  const found = unexecutedChangedCodeOf(result).filter(
    (u) => !result.samples.some((s) => s.arm === u.head && s.workload === u.workload),
  );
  if (found.length === 0) return given;
  const label = (c: CellComparison) => hypothesisLabel(given, c.id, c.metric);
  const comparisons = given.comparisons.map((arm) => {
    const mine = new Map(found.filter((u) => u.head === arm.head).map((u) => [u.workload, u]));
    if (mine.size === 0) return arm;
    const decide = (cell: CellComparison): CellComparison => {
      const u = mine.get(cell.workload);
      if (!u) return cell;
      // Bistable counts of such a workload are layout, which the message names: the cell is decided.
      const { unstable: _unstable, ...rest } = cell;
      return {
        ...rest,
        verdict: 'no-change',
        reasons: [{ code: 'changed-code-not-executed', message: unexecutedMessage(u) }],
        unusable: null,
      };
    };
    return redecidedArm(arm, decide, label);
  });
  const overall = overallVerdict(comparisons.map((c) => ({ id: c.head, verdict: c.verdict })));
  return { ...given, comparisons, verdict: overall.verdict, decidingArms: overall.deciding };
}
