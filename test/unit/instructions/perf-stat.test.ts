/**
 * perf stat's CSV output (`-x ,`) as perf-stat.ts reads it: captured on this VM (Debian 12, perf 6.1.187,
 * no PMU) with `perf stat -e task-clock -x , -o FILE -p PID` stopped by SIGINT, and `perf stat -x , -e
 * instructions:u true` for the unsupported event.
 */
import { describe, expect, it } from 'vitest';
import { perfStatCount } from '../../../src/postgres/instructions/perf-stat.js';

const TASK_CLOCK =
  '# started on Thu Nov 26 16:42:07 2026\n\n695.30,msec,task-clock,695297272,100.00,0.565,CPUs utilized\n';
const UNSUPPORTED = '<not supported>,,instructions:u,0,100.00,,\n';

describe('perfStatCount', () => {
  it("reads the named event's value, skipping the header comment", () => {
    expect(perfStatCount(TASK_CLOCK, 'task-clock')).toBe(695.3);
  });

  it("says perf's own words when it could not count, and what it wrote when the event is missing", () => {
    expect(() => perfStatCount(UNSUPPORTED, 'instructions:u')).toThrow(
      'perf stat could not count instructions:u: <not supported>',
    );
    expect(() => perfStatCount(TASK_CLOCK, 'instructions:u')).toThrow(
      /perf stat wrote no count of instructions:u: .*task-clock/,
    );
    expect(() => perfStatCount('', 'instructions:u')).toThrow(
      'perf stat wrote no count of instructions:u: no output',
    );
  });
});
