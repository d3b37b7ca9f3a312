/**
 * The instruction tests' and benches' workload: select-only at scale 1 and 1 client, short timed rounds,
 * with the instruction mode's settings `instructions` (YAML flow text, e.g. "{ repetitions: 3 }").
 */
export function instructionWorkloadText(rounds: number, instructions: string): string {
  return [
    'name: select-only',
    'tool: pgbench',
    'builtin: select-only',
    'scale: 1',
    'clients: [1]',
    'duration: 1',
    'warmup: 0',
    `rounds: ${rounds}`,
    `instructions: ${instructions}`,
    '',
  ].join('\n');
}
