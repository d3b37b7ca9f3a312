/**
 * The workloads whose counted runs already decided a regression for every head: instructions per
 * transaction beyond their threshold and not explained by bistable counts (instruction-rule.ts). A
 * regression of the counts fails the gate whatever the throughput does, so timed rounds there cannot
 * change the answer: the pipeline runs none for such a workload, and the answer comes after the counting.
 */
import type { InstructionsRecord } from '../../results/instructions.js';
import { judgeInstructionCell } from './instruction-rule.js';

export function regressedByCounts(
  record: InstructionsRecord | undefined,
  base: string,
  heads: readonly string[],
  workloads: readonly string[],
): string[] {
  if (!record || heads.length === 0) return [];
  return workloads.filter((workload) => {
    const clients = [...new Set(record.samples.filter((s) => s.workload === workload).map((s) => s.clients))];
    return heads.every((head) =>
      clients.some((c) => {
        const judged = judgeInstructionCell(record, { workload, clients: c }, base, head);
        return judged.judged.verdict === 'regression' && judged.bistable.length === 0;
      }),
    );
  });
}
