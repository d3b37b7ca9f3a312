import { Command } from 'commander';
import { readResults } from '../../../store/read-results.js';
import type { RunResult } from '../../../core/results/result-types.js';
import { writeResults } from '../../../store/write-results.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';
import { renderRunDetails, renderRunTable } from '../../../store/run-table.js';
import type { ResultStore, RunFilter, StoredRun } from '../../../store/store.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { positiveInt } from '../flag-parsers.js';

/**
 * `pgperf store list|show|export|import`: the results store from the command line.
 * The store is `--store DIR|URL`, else $PGPERF_STORE, else the default directory
 * (~/.local/share/pgperf/store). This adapter is the only place that reads those variables.
 */
export function storeCommand(): Command {
  const store = new Command('store').description(
    'list, show, export and import stored runs (a directory, or a PostgreSQL database)',
  );

  store.addCommand(
    withStoreOption(new Command('list'))
      .description('list stored runs, newest first')
      .option('--commit <sha|ref>', 'runs with this commit (sha prefix or ref name) on any arm')
      .option('--arm <label>', 'runs with this arm (with --commit: the commit of this arm)')
      .option('--workload <name>', 'runs that measured this workload')
      .option('--fingerprint <id>', 'runs with this environment fingerprint (id or prefix)')
      .option('--since <date>', 'runs started at or after this ISO date or time (UTC)')
      .option('--until <date>', 'runs started at or before this ISO date (whole day) or time')
      .option('--limit <n>', 'at most this many runs', positiveInt('--limit'))
      .option('--json', 'print the runs as JSON')
      .action(async (flags: StoreFlags & RunFilter & { json?: boolean }) => {
        const filter: RunFilter = {
          commit: flags.commit,
          arm: flags.arm,
          workload: flags.workload,
          fingerprint: flags.fingerprint,
          since: flags.since,
          until: flags.until,
          limit: flags.limit,
        };
        await withStore(flags, false, async (s) => {
          const runs = await s.list(filter);
          process.stdout.write(flags.json ? `${JSON.stringify(runs, null, 2)}\n` : renderRunTable(runs));
        });
      }),
  );

  store.addCommand(
    withStoreOption(new Command('show'))
      .description('show one stored run: arms, workloads, environment fingerprint')
      .argument('<id>', 'run id, as listed by pgperf store list')
      .option('--json', 'print the whole results document')
      .action(async (id: string, flags: StoreFlags & { json?: boolean }) => {
        await withStore(flags, false, async (s) => {
          const doc = await s.load(id);
          process.stdout.write(flags.json ? `${JSON.stringify(doc, null, 2)}\n` : renderRunDetails(doc));
        });
      }),
  );

  store.addCommand(
    withStoreOption(new Command('export'))
      .description('write a stored run as a results.json (for pgperf compare, or another store)')
      .argument('<id>', 'run id, as listed by pgperf store list')
      .option('--out <file>', 'write here (atomically) instead of to stdout')
      .action(async (id: string, flags: StoreFlags & { out?: string }) => {
        await withStore(flags, false, async (s) => {
          const doc = await s.load(id);
          if (flags.out) {
            await writeResults(flags.out, doc);
            process.stderr.write(`exported run ${id} to ${flags.out}\n`);
          } else {
            process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
          }
        });
      }),
  );

  store.addCommand(
    withStoreOption(new Command('import'))
      .description('save results files (e.g. a downloaded artifact) into the store; importing again replaces')
      .argument('<results.json...>', 'results files written by pgperf run')
      .option('--json', 'print the stored runs as JSON')
      .action(async (files: string[], flags: StoreFlags & { json?: boolean }) => {
        // Every file is read and checked before anything is saved: a bad file stores nothing.
        const docs: RunResult[] = [];
        for (const file of files) docs.push(await readResults(file));
        await withStore(flags, true, async (s) => {
          const saved: StoredRun[] = [];
          for (const [i, doc] of docs.entries()) {
            const run = await s.save(doc);
            saved.push(run);
            if (!flags.json) process.stdout.write(`imported ${files[i]} as ${run.id}\n`);
          }
          if (flags.json) process.stdout.write(`${JSON.stringify(saved, null, 2)}\n`);
        });
      }),
  );
  return store;
}

interface StoreFlags {
  store?: string;
}

/** The --store option, and errors thrown to main() like those of top-level commands. */
function withStoreOption(cmd: Command): Command {
  return cmd.exitOverride().showHelpAfterError().option('--store <dir|url>', STORE_OPTION_HELP);
}

async function withStore(
  flags: StoreFlags,
  write: boolean,
  fn: (s: ResultStore) => Promise<void>,
): Promise<void> {
  const logger = consoleLogger();
  const store = await openCliStore(flags.store, logger, write);
  try {
    logger.debug(store.description);
    await fn(store);
  } finally {
    await store.close();
  }
}
