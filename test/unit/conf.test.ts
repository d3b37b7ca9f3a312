import { describe, expect, it } from 'vitest';
import {
  BASELINE_SETTINGS,
  clusterSettings,
  renderConf,
  settingsHash,
} from '../../src/postgres/cluster/conf.js';

const input = { port: 5555, socketDir: '/tmp/x/socket', maxClients: 64, workloadSettings: {} };

describe('clusterSettings', () => {
  it('starts from the documented baseline', () => {
    const s = clusterSettings(input);
    for (const [k, v] of Object.entries(BASELINE_SETTINGS)) expect(s[k]).toBe(v);
    expect(s.jit).toBe('off');
    expect(s.max_parallel_workers_per_gather).toBe('0');
  });

  it('raises max_connections past the largest client count plus reserved slots', () => {
    expect(Number(clusterSettings(input).max_connections)).toBe(64 + 3 + 5);
    expect(Number(clusterSettings({ ...input, maxClients: 1 }).max_connections)).toBe(20);
  });

  it('applies workload settings, then arm settings, and keeps connection settings its own', () => {
    const s = clusterSettings({
      ...input,
      workloadSettings: {
        shared_buffers: '2GB',
        synchronous_commit: 'on',
        work_mem: 4096,
        autovacuum: false,
      },
      armSettings: { synchronous_commit: 'off' },
    });
    expect(s.shared_buffers).toBe('2GB');
    expect(s.synchronous_commit).toBe('off');
    expect(s.work_mem).toBe('4096');
    expect(s.autovacuum).toBe('false');
    expect(s.port).toBe('5555');
    expect(s.listen_addresses).toBe("''");
    expect(s.unix_socket_directories).toBe("'/tmp/x/socket'");
  });
});

describe('renderConf', () => {
  it('quotes strings, leaves numbers and booleans, escapes quotes', () => {
    const text = renderConf({ a: '1GB', b: '42', c: 'on', d: "it's", e: "'C'", f: '0.9' });
    expect(text.split('\n').slice(1, 7)).toEqual([
      "a = '1GB'",
      'b = 42',
      'c = on',
      "d = 'it''s'",
      "e = 'C'",
      'f = 0.9',
    ]);
  });
});

describe('settingsHash', () => {
  it('ignores port and socket, not the settings that define the experiment', () => {
    const a = clusterSettings(input);
    const b = clusterSettings({ ...input, port: 6000, socketDir: '/elsewhere' });
    const c = clusterSettings({ ...input, armSettings: { synchronous_commit: 'off' } });
    expect(settingsHash(a)).toBe(settingsHash(b));
    expect(settingsHash(a)).not.toBe(settingsHash(c));
  });
});
