/**
 * Same compiled code, no rounds: a head whose programs, libraries and data files are base's (compared
 * byte for byte after masking install paths, src/postgres/builds/compiled-code.ts) and which runs with
 * base's settings cannot perform differently, so every one of its cells is decided "no change" without a
 * measurement (core/results/unchanged-heads.ts says which heads are such heads). The pipeline measures no
 * such head (and no round at all when every head is one); this module turns the cells of such a head into
 * that decision, so every surface renders it like any other.
 */
import { redecidedArm } from './redecided-arm.js';
import type { CompiledCodeComparison, RunResult } from '../../results/result-types.js';
import { unchangedHeadsOf } from '../../results/unchanged-heads.js';
import { overallVerdict } from '../overall.js';
import { hypothesisLabel } from './analysis.js';
import type { CellComparison, RunComparison } from '../comparison-types.js';

/** "same compiled code as base (1,234 files equal after masking install paths), same settings". */
export function sameCodeMessage(c: CompiledCodeComparison): string {
  return `same compiled code as base (${c.files.toLocaleString('en-US')} programs, libraries and data files equal after masking install paths) and the same settings: nothing this head runs changed, so nothing was measured`;
}

/**
 * What differs, in a line: "1 of 1,234 files differ (bin/postgres); in bin/postgres 1 function changed:
 * standard_ExecutorRun (12,345 others only moved)", or "... 3 functions changed only in immediates (e.g.
 * __LINE__): int4in, ...". A comparison made byte for byte (documents written before the disassembly, or
 * no objdump) counts moved functions too: "in bin/postgres the code of 2 of 12,345 functions: int4in,
 * ExecInitNode".
 */
export function describeCodeDifference(c: CompiledCodeComparison, shown = 5): string {
  if (c.unknown) return `not compared: ${c.unknown}`;
  if (c.identical) return `the same compiled code (${c.files.toLocaleString('en-US')} files)`;
  const list = (names: readonly string[], count: number) =>
    `${names.slice(0, shown).join(', ')}${count > shown ? `, … (${count - shown} more)` : ''}`;
  const files = `${c.differingCount.toLocaleString('en-US')} of ${c.files.toLocaleString('en-US')} files differ (${list(c.differingFiles, c.differingCount)})`;
  const f = c.serverFunctions;
  if (!f) return files;
  return `${files}; ${describeServerFunctions(f, list)}`;
}

/** The server binary's part of describeCodeDifference. */
function describeServerFunctions(
  f: NonNullable<CompiledCodeComparison['serverFunctions']>,
  list: (names: readonly string[], count: number) => string,
): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const functions = (x: number) => `${n(x)} function${x === 1 ? '' : 's'}`;
  const moved = f.movedOnlyCount ?? 0;
  if (f.changedCount === 0 && moved === 0)
    return `bin/postgres differs outside its functions' code (data, strings)`;
  if (f.method !== 'disassembly') {
    const how = f.note ? ` (compared byte for byte, moved ones included: ${f.note})` : '';
    return `in bin/postgres the code of ${n(f.changedCount)} of ${n(f.total)} functions${how}: ${list(f.changed, f.changedCount)}`;
  }
  const immediates = f.immediatesOnlyCount ?? 0;
  // changed names the rewritten functions before those changed only in immediates.
  const rewritten = f.changedCount - immediates;
  const parts: string[] = [];
  if (rewritten > 0)
    parts.push(`${functions(rewritten)} changed: ${list(f.changed.slice(0, rewritten), rewritten)}`);
  if (immediates > 0) {
    parts.push(
      `${functions(immediates)} changed only in immediates (e.g. __LINE__): ${list(f.immediatesOnly ?? [], immediates)}`,
    );
  }
  if (parts.length === 0)
    return `in bin/postgres no function's code changed (${functions(moved)} only moved)`;
  const others = moved > 0 ? ` (${n(moved)} other${moved === 1 ? '' : 's'} only moved)` : '';
  return `in bin/postgres ${parts.join('; ')}${others}`;
}

/** True when the cell was decided by its head's compiled code being base's. */
export function decidedBySameCode(cell: Pick<CellComparison, 'reasons'>): boolean {
  return cell.reasons.some((r) => r.code === 'same-compiled-code');
}

/** The comparison with every cell of an unchanged head decided "no change (same compiled code)". */
export function withSameCompiledCode(given: RunComparison, result: RunResult): RunComparison {
  if (!result.compiledCode) return given;
  // Every report says what the heads' code has in common with base's, measured or not.
  const comparison = { ...given, compiledCode: result.compiledCode };
  const unchanged = new Map(unchangedHeadsOf(result).map((c) => [c.head, c]));
  if (unchanged.size === 0) return comparison;
  const label = (c: CellComparison) => hypothesisLabel(comparison, c.id, c.metric);
  const comparisons = comparison.comparisons.map((arm) => {
    const code = unchanged.get(arm.head);
    if (!code) return arm;
    const decided = (cell: CellComparison): CellComparison => ({
      ...cell,
      verdict: 'no-change',
      reasons: [{ code: 'same-compiled-code', message: sameCodeMessage(code) }],
      unusable: null,
    });
    return { ...redecidedArm(arm, decided, label), likelyRegressionCells: [] };
  });
  const overall = overallVerdict(comparisons.map((c) => ({ id: c.head, verdict: c.verdict })));
  const heads = new Set(unchanged.keys());
  return {
    ...comparison,
    comparisons,
    verdict: overall.verdict,
    decidingArms: overall.deciding,
    likelyRegressions: comparison.likelyRegressions.filter((id) => !heads.has(id.split(':')[0]!)),
    // The "too few rounds" and "partial results" warnings of an empty run say nothing about such a head.
    warnings: unchanged.size === comparison.comparisons.length ? [] : comparison.warnings,
  };
}
