/**
 * The storeys of src/, from the ground up (docs/design.md). Each storey is one folder; `folders` are its
 * rooms from the ground up ('' = the files directly in the storey folder; '*' = every other sub-folder of
 * the storey, each a room of its own at that height, which imports none of the others). A file imports
 * files of its own room, of rooms listed before it in its storey, and of lower storeys; nothing imports in
 * a circle.
 * The entry files (src/cli.ts, src/action.ts, src/index.ts) stand above every storey.
 * Checked by scripts/check-layers.mjs in the lint step.
 */
export const STOREYS = [
  // Plain values and pure functions: the results document, statistics, comparison, decision, rendering.
  // (compare: the cell statistics and verdicts; compare/evidence: the steady evidence (instruction counts,
  // waits, steady costs); compare/analysis: a run's cells judged, adaptive looks, the confirmation block,
  // same code; compare/decision: the gate's policy and the one decision of every flow.
  // history: the series of stored runs, their change points, the nightly judgement. attribution: which
  // commits of a range moved the instruction counts (the search, how the parts add up). report: the words
  // every markup shares; report/comment: the sticky comment's marker and hidden state; report/evidence:
  // one section per kind of evidence (instructions, plans, waits, steady costs, compiled code, cost),
  // each said in every markup; report/terminal, report/markdown (PR comment, job summary), report/mail:
  // the surfaces; report/bisect: a bisection's report; report/attribution: an attribution's; report/history: the history site; report/nightly: the nightly summary, issues, digest.)
  {
    name: 'core',
    folders: [
      '',
      'util',
      'stats',
      'results',
      'compare',
      'compare/evidence',
      'compare/analysis',
      'compare/decision',
      'history',
      'attribution',
      'report',
      'report/comment',
      'report/evidence',
      'report/terminal',
      'report/markdown',
      'report/mail',
      'report/bisect',
      'report/attribution',
      'report/history',
      'report/nightly',
    ],
  },
  // This host: processes, files, signals, hardware facts, fingerprint, doctor, controls.
  { name: 'machine', folders: ['os', ''] },
  // PostgreSQL: building a commit, running a cluster, counting its instructions, reading its backends'
  // memory (memory), reading its wait events.
  { name: 'postgres', folders: ['cluster', 'builds', 'instructions', 'memory', ''] },
  // Workload files and the benchmark drivers: what every tool shares, then one folder per tool (pgbench,
  // sysbench, any other registered in src/drivers/registry.ts), then the registry and the loader.
  { name: 'drivers', folders: ['common', '*', ''] },
  // Where results are kept: the contract and results files (''), one folder per backend (a directory,
  // PostgreSQL, a data branch of the repository), and opening the backend a spec names.
  { name: 'store', folders: ['', 'dir', 'postgres', 'branch', 'open'] },
  // GitHub's REST API behind a small interface (octokit with retries and throttling) and the sticky comment.
  { name: 'github', folders: [''] },
  // One interleaved run: plan, rounds, adaptive looks, the durable sink, shards.
  // ('memory': the backends' memory sampled during a measured run; 'counted': the counted runs beside the timed ones: instruction counts, query plans, EXPLAIN, on
  // servers of their own.)
  { name: 'run', folders: ['memory', '', 'counted'] },
  // What a user asks for, each once: history, compare, publishing a verdict, calibrate, nightly, bisect,
  // attribute (the commits of a range that moved the counts), consolidate, the /pgperf PR commands (steer).
  {
    name: 'flows',
    folders: [
      'history',
      // compare: runner noise and the statistical design, the pipeline, the stored baseline, the options,
      // then the flows the adapters call.
      'compare/noise',
      'compare/pipeline',
      'compare/baseline',
      'compare/options',
      'compare',
      'publish',
      'calibrate',
      'nightly',
      'bisect',
      'attribute',
      'consolidate',
      'steer',
    ],
  },
  // The command line and the GitHub Action: parse, call a flow, render. ('action': inputs, context, the
  // gate and publishing every mode shares; 'action/modes': one file per mode, and run-action choosing one.)
  { name: 'adapters', folders: ['cli', 'cli/commands', 'action', 'action/modes'] },
];
