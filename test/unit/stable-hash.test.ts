import { describe, expect, it } from 'vitest';
import { stableHash } from '../../src/core/util/stable-hash.js';

describe('stableHash', () => {
  it('is 64-bit FNV-1a: the published test vectors, as 16 hex digits', () => {
    expect(stableHash('')).toBe('cbf29ce484222325');
    expect(stableHash('a')).toBe('af63dc4c8601ec8c');
    expect(stableHash('foobar')).toBe('85944171f73967e8');
  });

  it('hashes the UTF-8 bytes, so a non-ASCII text differs from its look-alike', () => {
    expect(stableHash('é')).not.toBe(stableHash('e'));
    expect(stableHash('é')).toMatch(/^[0-9a-f]{16}$/);
  });
});
