/**
 * Which folders of src/ each folder may import (its own files always). The lowest layers import nothing;
 * adapters (cli, action) import what they wire. Enforced by eslint.config.js in the lint step; the README's
 * "Design" section explains each folder's one rule.
 */
export const LAYERS = {
  stats: [],
  util: [],
  results: ['util', 'pg-build', 'compare', 'diagnostics', 'env', 'fleet'], // the document records their types
  compare: ['results', 'stats'],
  diagnostics: [],
  env: ['results'],
  config: ['compare', 'machine', 'results', 'util'], // metric names of `metrics`, fail-on values of `failOn`
  cluster: ['config', 'util'],
  machine: ['env', 'util'],
  'pg-build': ['cluster', 'util', 'version'],
  drivers: ['cluster', 'config', 'results', 'util'],
  fleet: ['config', 'env', 'results', 'util'],
  store: ['env', 'results', 'util'],
  report: ['compare', 'diagnostics', 'results'],
  history: ['compare', 'report', 'results', 'stats', 'store', 'util'],
  runner: [
    'pg-build',
    'cluster',
    'compare',
    'config',
    'diagnostics',
    'drivers',
    'env',
    'fleet',
    'machine',
    'results',
    'util',
    'version',
  ],
  pipeline: [
    'pg-build',
    'compare',
    'config',
    'drivers',
    'env',
    'fleet',
    'history', // the runner's noise from stored series (runner-noise.ts)
    'report',
    'results',
    'runner',
    'stats',
    'store',
    'util',
  ],
  bisect: ['pg-build', 'compare', 'config', 'drivers', 'pipeline', 'results', 'util'],
  github: ['history'],
  action: '*',
  cli: '*',
};
