import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PGPERF_VERSION } from '../../src/core/version.js';

describe('version', () => {
  it('matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(PGPERF_VERSION).toBe(pkg.version);
  });
});
