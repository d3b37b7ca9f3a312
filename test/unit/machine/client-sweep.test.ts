import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { workloadJsonSchema } from '../../../src/drivers/workload.js';
import { autoClientSweep } from '../../../src/machine/client-sweep.js';

describe('autoClientSweep', () => {
  it.each([
    [1, [1, 2]],
    [2, [1, 2, 4]],
    [48, [1, 2, 4, 8, 16, 32, 48, 64, 96]],
    [64, [1, 2, 4, 8, 16, 32, 64, 128]],
    [352, [1, 2, 4, 8, 16, 32, 64, 128, 256, 352, 512, 704]],
  ])('%i logical CPUs -> %j', (cpus, sweep) => {
    expect(autoClientSweep(cpus)).toEqual(sweep);
  });

  it('always starts at 1, ends at 2x the CPUs, increases, and at most doubles per step', () => {
    for (let cpus = 1; cpus <= 300; cpus++) {
      const s = autoClientSweep(cpus);
      expect(s[0]).toBe(1);
      expect(s.at(-1)).toBe(2 * cpus);
      expect(s).toContain(cpus);
      for (let i = 1; i < s.length; i++) {
        expect(s[i]!).toBeGreaterThan(s[i - 1]!);
        expect(s[i]!).toBeLessThanOrEqual(2 * s[i - 1]!);
      }
    }
  });

  it('refuses a nonsense CPU count', () => {
    expect(() => autoClientSweep(0)).toThrow(/positive integer, got 0/);
  });
});

describe('workload files: clients: auto and cpus', () => {
  const base = 'name: w\ntool: pgbench\nbuiltin: select-only\n';

  it('clients: auto becomes the sweep of the CPUs this process may use, in both tools', () => {
    const expected = autoClientSweep(os.availableParallelism());
    expect(parseWorkload(`${base}clients: auto\n`, 'w.yml').clients).toEqual(expected);
    expect(
      parseWorkload('name: s\ntool: sysbench\nscript: oltp_read_only\nclients: auto\n', 's.yml').clients,
    ).toEqual(expected);
  });

  it('cpus takes "auto" or server/client CPU lists (numbers too), and is unset by default', () => {
    expect(parseWorkload(`${base}clients: [1]\n`, 'w.yml').cpus).toBeUndefined();
    expect(parseWorkload(`${base}clients: [1]\ncpus: auto\n`, 'w.yml').cpus).toBe('auto');
    expect(parseWorkload(`${base}clients: [1]\ncpus: {server: 0, client: "1-3,8"}\n`, 'w.yml').cpus).toEqual({
      server: '0',
      client: '1-3,8',
    });
  });

  it.each([
    [
      'cpus: all',
      'w.yml:5:7: cpus: expected "auto" or {server: "0-3", client: "4-7"} (kernel CPU lists), got "all"',
    ],
    ['cpus: {server: "0"}', 'cpus: expected "auto" or {server: "0-3", client: "4-7"}'],
    [
      'cpus: {server: "zero", client: "1"}',
      'w.yml:5:16: cpus.server: expected a CPU list like 0-3,8, got "zero"',
    ],
    ['clients: automatic', 'clients: expected array, got "automatic"'],
  ])('%s is refused with the field and the expected form', (line, message) => {
    const text = line.startsWith('clients') ? `${base}${line}\n` : `${base}clients: [1]\n${line}\n`;
    expect(() => parseWorkload(text, 'w.yml')).toThrow(message);
  });

  it('the JSON Schema offers "auto" for clients and documents cpus', () => {
    const text = JSON.stringify(workloadJsonSchema());
    expect(text).toContain('{"type":"string","const":"auto"}');
    expect(text).toContain('Pin the server and the clients to separate CPUs');
  });
});
