import { Command } from 'commander';
import { workloadJsonSchema } from '../../../drivers/workload.js';

export function schemaCommand(): Command {
  return new Command('schema')
    .description(
      'print the JSON Schema of workload files (kept as workloads/workload.schema.json for editors)',
    )
    .action(() => {
      process.stdout.write(`${JSON.stringify(workloadJsonSchema(), null, 2)}\n`);
    });
}
