/**
 * The toolchain of a Debian 12 x86-64 runner (Debian's gcc 12), as src/postgres/builds/toolchain.ts
 * detects it: for tests of what a build records or keys on. Spread it (`{ ...GCC_12_DEBIAN }`) to vary a field.
 */
import type { Compiler, Platform } from '../../src/postgres/builds/toolchain.js';

export const GCC_12_DEBIAN: Compiler = {
  command: 'gcc',
  path: '/usr/bin/gcc',
  version: 'gcc (Debian 12.2.0-14+deb12u1) 12.2.0',
  target: 'x86_64-linux-gnu',
};

export const DEBIAN_12_X64: Platform = { os: 'linux', arch: 'x64', release: 'debian 12' };
