/**
 * The `/pgperf` comment grammar, case by case: what is a command, what it asks for, and a one-line problem
 * for everything else (hostile strings included), never an exception.
 */
import { describe, expect, it } from 'vitest';
import { parsePgperfCommand, type PgperfCommand } from '../../../src/core/pgperf-command.js';

const commands: Array<[string, PgperfCommand]> = [
  ['/pgperf run', { kind: 'run' }],
  ['  /pgperf   run  ', { kind: 'run' }],
  ['/pgperf run\nplease, with the new numbers', { kind: 'run' }],
  [
    '/pgperf run workloads=select-only,tpcb-like clients=1,64 rounds=10',
    { kind: 'run', workloads: ['select-only', 'tpcb-like'], clients: [1, 64], rounds: 10 },
  ],
  ['/pgperf run rounds=3 workloads=a', { kind: 'run', workloads: ['a'], rounds: 3 }],
  ['/pgperf rerun select-only@64', { kind: 'rerun', workload: 'select-only', clients: 64 }],
  [
    '/pgperf accept tpcb@1 root-page lock fix: +30% at 64 clients',
    { kind: 'accept', workload: 'tpcb', clients: 1, reason: 'root-page lock fix: +30% at 64 clients' },
  ],
  [
    '/pgperf accept tpcb expected, see thread',
    { kind: 'accept', workload: 'tpcb', reason: 'expected, see thread' },
  ],
  ['/pgperf help', { kind: 'help' }],
  ['\uFEFF/pgperf help', { kind: 'help' }],
];

const notCommands = [
  '',
  'LGTM',
  '/pgperfrun',
  '/pgperf-run',
  'please /pgperf run',
  '`/pgperf run`',
  '> /pgperf run',
];

const problems: Array<[string, RegExp]> = [
  ['/pgperf', /^no command after \/pgperf$/],
  ['/pgperf go', /^unknown command 'go': expected run, rerun, accept, attribute or help$/],
  ['/pgperf RUN', /^unknown command 'RUN'/],
  ['/pgperf help me', /^'help' takes nothing, got 'me'$/],
  ['/pgperf run fast', /^unknown option 'fast' of 'run': expected workloads=, clients=, rounds=$/],
  ['/pgperf run threads=4', /^unknown option 'threads=4'/],
  ['/pgperf run rounds=10 rounds=20', /^option 'rounds' given twice$/],
  ['/pgperf run rounds=0', /^rounds=: '0' is not a whole number >= 1$/],
  ['/pgperf run rounds=1e3', /^rounds=: '1e3' is not a whole number >= 1$/],
  ['/pgperf run rounds=-1', /^rounds=: '-1'/],
  ['/pgperf run rounds=1,2', /^rounds=: one whole number >= 1, got '1,2'$/],
  ['/pgperf run rounds=99999999999999999999', /^rounds=: '99999999999999999999'/],
  ['/pgperf run clients=1,,64', /^clients=: '' is not a whole number >= 1$/],
  ['/pgperf run clients=0x10', /^clients=: '0x10'/],
  ['/pgperf run clients=4,4', /^clients=: client counts must not repeat$/],
  ['/pgperf run workloads=', /^workloads=: '' is no workload name/],
  ['/pgperf run workloads=../../etc/passwd', /^workloads=: '..\/..\/etc\/passwd' is no workload name/],
  ['/pgperf run workloads=a,a', /^workloads=: a name repeats$/],
  ['/pgperf run workloads=$(rm -rf /)', /^workloads=: '\$\(rm' is no workload name/],
  ['/pgperf run; rm -rf /', /^unknown command 'run;'/],
  ['/pgperf rerun', /^'rerun' takes one <workload>@<clients>, got 0 words$/],
  ['/pgperf rerun tpcb', /^'tpcb' needs @<clients>, e.g. tpcb@64$/],
  ['/pgperf rerun tpcb@x', /^'tpcb@x': clients: 'x' is not a whole number >= 1$/],
  ['/pgperf rerun tpcb@1 tpcb@2', /^'rerun' takes one <workload>@<clients>, got 2 words$/],
  ['/pgperf rerun @64', /^'@64' is no <workload>@<clients>/],
  ['/pgperf accept', /^'accept' needs <workload>\[@<clients>\] and a reason$/],
  ['/pgperf accept tpcb@1', /^'accept tpcb@1' needs a reason/],
  [`/pgperf accept tpcb@1 ${'x'.repeat(301)}`, /^the reason is longer than 300 characters$/],
  [`/pgperf run ${'a'.repeat(2000)}`, /^the command is longer than 1000 characters$/],
  ['/pgperf accept tpcb@1 fine\u202eevil', /^the command contains control or bidirectional characters$/],
  ['/pgperf run\u0007', /control/],
  ['/pgperf accept <img src=x>@1 why', /^'<img' is no <workload>\[@<clients>\]/],
];

describe('parsePgperfCommand', () => {
  it.each(commands)('%j is a command', (body, command) => {
    expect(parsePgperfCommand(body)).toEqual({ ok: true, command, text: expect.stringMatching(/^\/pgperf/) });
  });

  it.each(notCommands)('%j is no command at all', (body) => {
    expect(parsePgperfCommand(body)).toBeUndefined();
  });

  it.each(problems)('%j is a command with a problem', (body, problem) => {
    const parsed = parsePgperfCommand(body);
    expect(parsed?.ok).toBe(false);
    expect(parsed && !parsed.ok ? parsed.problem : '').toMatch(problem);
    // One line, short enough to quote back.
    expect(parsed && !parsed.ok ? parsed.problem : '').not.toContain('\n');
    expect(parsed!.text.length).toBeLessThanOrEqual(1000);
  });
});
