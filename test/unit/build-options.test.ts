import { describe, expect, it } from 'vitest';
import {
  configureOptions,
  mesonOptions,
  parseMesonOptionNames,
} from '../../src/postgres/builds/build-options.js';

// Option names of PostgreSQL 18.6's meson_options.txt that the pinning touches (and one it does not).
const PG18 = new Set([
  'cassert',
  'injection_points',
  'rpath',
  'readline',
  'zlib',
  'icu',
  'ssl',
  'uuid',
  'libedit_preferred',
  'libnuma',
]);
// PostgreSQL 16 has no injection_points option: passing it would make meson fail.
const PG16 = new Set(['cassert', 'rpath', 'readline', 'zlib', 'icu', 'ssl', 'uuid', 'libedit_preferred']);

describe('meson options (PostgreSQL 16+)', () => {
  it('is a pinned release build: -O2, no debug info, no assertions, features off except the wanted ones', () => {
    expect(mesonOptions({ prefix: '/c/installs/k', extra: [], available: PG18 })).toEqual([
      '--prefix=/c/installs/k',
      '-Dlibdir=lib',
      '-Doptimization=2',
      '-Ddebug=false',
      '-Dcassert=false',
      '-Dinjection_points=false',
      '-Drpath=true',
      '-Dauto_features=disabled',
      '-Dreadline=enabled',
      '-Dzlib=enabled',
      '-Dicu=enabled',
      '-Dssl=none',
      '-Duuid=none',
      '-Dlibedit_preferred=false',
    ]);
  });

  it('only pins options the tree has', () => {
    const opts = mesonOptions({ prefix: '/p', extra: [], available: PG16 });
    expect(opts).not.toContain('-Dinjection_points=false');
    expect(opts).toContain('-Dcassert=false');
  });

  it("puts the user's options last, replacing a pinned one of the same name", () => {
    const opts = mesonOptions({
      prefix: '/p',
      extra: ['-Dicu=disabled', '-Dc_args=-fno-omit-frame-pointer', '-Db_lto=true', '-Dlibnuma=enabled'],
      available: PG18,
    });
    expect(opts).not.toContain('-Dicu=enabled');
    expect(opts.slice(-4)).toEqual([
      '-Dicu=disabled',
      '-Dc_args=-fno-omit-frame-pointer',
      '-Db_lto=true',
      '-Dlibnuma=enabled',
    ]);
  });

  it('refuses options that would fail or fight pgperf, naming the flag and the fix', () => {
    expect(() => mesonOptions({ prefix: '/p', extra: ['--with-icu'], available: PG18 })).toThrow(
      '--build-option --with-icu: this tree builds with meson, which takes -DNAME=VALUE options',
    );
    expect(() => mesonOptions({ prefix: '/p', extra: ['-Dnosuch=1'], available: PG18 })).toThrow(
      '--build-option -Dnosuch=1: this tree has no meson option "nosuch"',
    );
    expect(() => mesonOptions({ prefix: '/p', extra: ['-Dprefix=/x'], available: PG18 })).toThrow(
      /use --prefix DIR/,
    );
  });

  it("reads option names from the tree's meson_options.txt", () => {
    const text =
      "option('blocksize', type : 'combo',\n  value: '8')\n\n  option( 'icu', type: 'feature', value: 'auto')\n# option('commented', ...)\n";
    expect([...parseMesonOptionNames(text)]).toEqual(['blocksize', 'icu']);
  });
});

describe('configure options (PostgreSQL 15 and older)', () => {
  it('spells out every default: no assertions or debug, readline/zlib/icu on, optional libraries off', () => {
    const opts = configureOptions({ prefix: '/c/installs/k', extra: [] });
    expect(opts[0]).toBe('--prefix=/c/installs/k');
    for (const o of [
      '--disable-cassert',
      '--disable-debug',
      '--with-readline',
      '--with-zlib',
      '--with-icu',
      '--without-openssl',
      '--without-llvm',
      '--without-lz4',
    ]) {
      expect(opts).toContain(o);
    }
    expect(opts.some((o) => o.startsWith('--enable-cassert') || o.startsWith('--enable-debug'))).toBe(false);
  });

  it("keeps the user's options last and refuses meson syntax", () => {
    expect(configureOptions({ prefix: '/p', extra: ['--with-lz4', 'CFLAGS=-O3'] }).slice(-2)).toEqual([
      '--with-lz4',
      'CFLAGS=-O3',
    ]);
    expect(() => configureOptions({ prefix: '/p', extra: ['-Dicu=disabled'] })).toThrow(
      /--build-option -Dicu=disabled: this tree builds with \.\/configure \(PostgreSQL 15 and older\)/,
    );
  });
});
