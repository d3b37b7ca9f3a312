/**
 * Which postgresql.conf settings a workload file or `--set` may change, and what a value may look
 * like. pgperf writes every value into one line of pgperf.conf, so a value is a single line without NUL
 * (a newline would smuggle in a second setting, e.g. an `hba_file`). A setting is refused when pgperf
 * sets it itself, or when PostgreSQL says its value names a shell command, a library, a file, a directory
 * or a server to connect to: the server would run, load, read or write it as the user that runs
 * PostgreSQL, outside the install under test and the cluster's private directory. Settings that name a
 * library or a locale take names, never paths.
 *
 * REFUSED_SETTINGS is the one list, each entry with its reason; docs/security.md shows it, and
 * test/integration/settings-audit.int.test.ts checks it against what `pg_settings` of every supported
 * PostgreSQL says about each string setting (core and the install's own modules).
 */

/** What a refused setting's value is, as PostgreSQL describes it (or that pgperf sets it). */
export type RefusalKind = 'pgperf' | 'command' | 'library' | 'file' | 'directory' | 'connection' | 'locale';

export interface RefusedSetting {
  /** The name as PostgreSQL spells it (names are compared in lower case, as PostgreSQL does). */
  name: string;
  kind: RefusalKind;
  /** 'any value': the setting is refused; 'paths': names are taken, a value with a path is refused. */
  refuses: 'any value' | 'paths';
  /** For 'paths': the names it takes instead, with an example. */
  takes?: string;
  /** What the value does and why it is refused: said in the error and in docs/security.md. */
  why: string;
  /** Where the setting exists when not in every supported version of core PostgreSQL. */
  where?: string;
}

/** What a library list takes: names only, so `$libdir/x`, a path or an octal escape (`\057`) is refused. */
const LIBRARY_NAMES = 'library names of the install under test (e.g. pg_stat_statements)';

/** Every setting pgperf refuses, grouped by what its value is; each with the reason. */
export const REFUSED_SETTINGS: readonly RefusedSetting[] = [
  // pgperf's own, written by initdb and conf.ts for every cluster: it would not be reachable, comparable or
  // contained otherwise.
  {
    name: 'port',
    kind: 'pgperf',
    refuses: 'any value',
    why: 'pgperf picks a free port for each cluster',
  },
  {
    name: 'listen_addresses',
    kind: 'pgperf',
    refuses: 'any value',
    why: "pgperf's clusters listen on their private unix socket only, never on TCP",
  },
  {
    name: 'unix_socket_directories',
    kind: 'pgperf',
    refuses: 'any value',
    why: "the server creates its socket and lock file in pgperf's private socket directory (mode 0700); another directory is one the server writes into",
  },
  {
    name: 'data_directory',
    kind: 'pgperf',
    refuses: 'any value',
    why: "the cluster's own, made by initdb in pgperf's private temp directory; another is a directory the server reads and writes",
  },
  {
    name: 'config_file',
    kind: 'pgperf',
    refuses: 'any value',
    why: "the cluster's own postgresql.conf, which includes pgperf's settings; another file would replace them",
  },
  {
    name: 'hba_file',
    kind: 'pgperf',
    refuses: 'any value',
    why: "who may connect, and how: the cluster's own pg_hba.conf; another file is one the server reads",
  },
  {
    name: 'ident_file',
    kind: 'pgperf',
    refuses: 'any value',
    why: "user name maps: the cluster's own pg_ident.conf; another file is one the server reads",
  },
  {
    name: 'lc_messages',
    kind: 'pgperf',
    refuses: 'any value',
    why: "pgperf reads the server's messages in English (start failures, the connections the instruction mode counts), so it sets 'C'; and glibc takes a locale name with a slash as a directory to read",
  },
  // Directives of the configuration file, not settings: pgperf includes its pgperf.conf with one.
  {
    name: 'include',
    kind: 'pgperf',
    refuses: 'any value',
    why: "pgperf includes its own pgperf.conf; another include reads a file pgperf never checked into the cluster's configuration",
  },
  {
    name: 'include_if_exists',
    kind: 'pgperf',
    refuses: 'any value',
    why: "pgperf includes its own pgperf.conf; another include reads a file pgperf never checked into the cluster's configuration",
  },
  {
    name: 'include_dir',
    kind: 'pgperf',
    refuses: 'any value',
    why: "pgperf includes its own pgperf.conf; another include reads a directory of files pgperf never checked into the cluster's configuration",
  },
  // Shell commands the server runs.
  {
    name: 'archive_command',
    kind: 'command',
    refuses: 'any value',
    why: 'a shell command the server runs to archive each WAL file',
  },
  {
    name: 'restore_command',
    kind: 'command',
    refuses: 'any value',
    why: 'a shell command the server runs to retrieve archived WAL files',
  },
  {
    name: 'archive_cleanup_command',
    kind: 'command',
    refuses: 'any value',
    why: 'a shell command the server runs at every restart point',
  },
  {
    name: 'recovery_end_command',
    kind: 'command',
    refuses: 'any value',
    why: 'a shell command the server runs at the end of recovery',
  },
  {
    name: 'ssl_passphrase_command',
    kind: 'command',
    refuses: 'any value',
    why: 'a shell command the server runs to obtain SSL passphrases',
  },
  {
    name: 'basebackup_to_shell.command',
    kind: 'command',
    refuses: 'any value',
    where: 'module basebackup_to_shell, 15+',
    why: 'a shell command the server runs for each file of a base backup',
  },
  {
    name: 'plperl.on_init',
    kind: 'command',
    refuses: 'any value',
    where: 'module plperl, in builds with Perl',
    why: 'Perl code the server runs when it starts a Perl interpreter (at server start when plperl is preloaded)',
  },
  {
    name: 'plperl.on_plperl_init',
    kind: 'command',
    refuses: 'any value',
    where: 'module plperl, in builds with Perl',
    why: 'Perl code the server runs when it starts a trusted Perl interpreter',
  },
  {
    name: 'plperl.on_plperlu_init',
    kind: 'command',
    refuses: 'any value',
    where: 'module plperl, in builds with Perl',
    why: 'Perl code the server runs when it starts an untrusted Perl interpreter',
  },
  // Libraries: code the server loads.
  {
    name: 'shared_preload_libraries',
    kind: 'library',
    refuses: 'paths',
    takes: LIBRARY_NAMES,
    why: 'the server loads each library at start; a path loads code from outside the install',
  },
  {
    name: 'session_preload_libraries',
    kind: 'library',
    refuses: 'paths',
    takes: LIBRARY_NAMES,
    why: 'each backend loads each library; a path loads code from outside the install',
  },
  {
    name: 'local_preload_libraries',
    kind: 'library',
    refuses: 'paths',
    takes: 'library names of the install under test (from its plugins directory)',
    why: 'each backend loads each library; a path loads code from outside the install',
  },
  {
    name: 'jit_provider',
    kind: 'library',
    refuses: 'paths',
    takes: 'the name of a JIT library of the install under test (llvmjit, the default)',
    why: 'the server loads $libdir/NAME.so when JIT is on; a relative path climbs out of $libdir to code anywhere',
  },
  {
    name: 'oauth_validator_libraries',
    kind: 'library',
    refuses: 'paths',
    takes: LIBRARY_NAMES,
    where: '18+',
    why: 'the server loads each library to validate OAuth tokens; a path loads code from outside the install',
  },
  {
    name: 'output_plugin_libraries',
    kind: 'library',
    refuses: 'paths',
    takes: LIBRARY_NAMES,
    where: 'minor releases from August 2026 on: 18.6, and 14 to 17 alike',
    why: 'the libraries a replication client may have loaded as output plugins; a path would let it load code from outside the install',
  },
  {
    name: 'archive_library',
    kind: 'library',
    refuses: 'any value',
    where: '15+',
    why: 'a library the server loads to archive WAL (a path loads code from anywhere); benchmark clusters do not archive',
  },
  {
    name: 'dynamic_library_path',
    kind: 'library',
    refuses: 'any value',
    why: 'the directories the server loads every library named without a path from: another directory turns each library name into code from there',
  },
  {
    name: 'extension_destdir',
    kind: 'library',
    refuses: 'any value',
    where: "Debian's packages",
    why: 'a directory prepended to the paths of extension files and of the libraries they load',
  },
  {
    name: 'extension_control_path',
    kind: 'library',
    refuses: 'any value',
    where: '18+',
    why: 'the directories CREATE EXTENSION reads control files from, and through them SQL scripts and libraries',
  },
  // Files and directories the server reads or writes as the user that runs it.
  {
    name: 'external_pid_file',
    kind: 'file',
    refuses: 'any value',
    why: 'the server writes its pid to this file, anywhere the user that runs it may write',
  },
  {
    name: 'log_directory',
    kind: 'directory',
    refuses: 'any value',
    why: "the server writes log files there, anywhere the user that runs it may write; pgperf keeps the server's log itself (server.log beside the cluster)",
  },
  {
    name: 'log_filename',
    kind: 'file',
    refuses: 'any value',
    why: "a file name under log_directory the server writes, with ../ anywhere the user that runs it may write; pgperf keeps the server's log itself",
  },
  {
    name: 'stats_temp_directory',
    kind: 'directory',
    refuses: 'any value',
    where: '14 and older',
    why: 'a directory the server writes statistics files into',
  },
  {
    name: 'promote_trigger_file',
    kind: 'file',
    refuses: 'any value',
    where: '15 and older',
    why: 'a file whose presence ends recovery; a path the server watches outside the cluster',
  },
  {
    name: 'ssl_cert_file',
    kind: 'file',
    refuses: 'any value',
    why: "a file the server reads (its SSL certificate); pgperf's clusters have no TCP, so SSL has nothing to do",
  },
  {
    name: 'ssl_key_file',
    kind: 'file',
    refuses: 'any value',
    why: "a file the server reads (its SSL private key); pgperf's clusters have no TCP, so SSL has nothing to do",
  },
  {
    name: 'ssl_ca_file',
    kind: 'file',
    refuses: 'any value',
    why: "a file the server reads (SSL certificate authorities); pgperf's clusters have no TCP, so SSL has nothing to do",
  },
  {
    name: 'ssl_crl_file',
    kind: 'file',
    refuses: 'any value',
    why: "a file the server reads (SSL revocation list); pgperf's clusters have no TCP, so SSL has nothing to do",
  },
  {
    name: 'ssl_crl_dir',
    kind: 'directory',
    refuses: 'any value',
    why: "a directory the server reads (SSL revocation lists); pgperf's clusters have no TCP, so SSL has nothing to do",
  },
  {
    name: 'ssl_dh_params_file',
    kind: 'file',
    refuses: 'any value',
    why: "a file the server reads (SSL Diffie-Hellman parameters); pgperf's clusters have no TCP, so SSL has nothing to do",
  },
  {
    name: 'krb_server_keyfile',
    kind: 'file',
    refuses: 'any value',
    why: "a file the server reads (the Kerberos key table); pgperf's clusters authenticate no one over the network",
  },
  {
    name: 'basic_archive.archive_directory',
    kind: 'directory',
    refuses: 'any value',
    where: 'module basic_archive, 15+',
    why: 'a directory the server copies WAL files into',
  },
  // Servers the server connects to.
  {
    name: 'primary_conninfo',
    kind: 'connection',
    refuses: 'any value',
    why: "a connection string a standby connects with: a host to reach and client files it reads (sslkey, passfile, service files); pgperf's clusters are no standbys",
  },
  // Locales: glibc takes a name with a slash as the directory of the locale's files.
  ...['lc_monetary', 'lc_numeric', 'lc_time'].map((name): RefusedSetting => ({
    name,
    kind: 'locale',
    refuses: 'paths',
    takes: "locale names (e.g. 'C' or en_US.UTF-8)",
    why: 'glibc takes a locale name that starts with a slash as a directory of locale files to read',
  })),
];

const BY_NAME: ReadonlyMap<string, RefusedSetting> = new Map(REFUSED_SETTINGS.map((s) => [s.name, s]));

/** The entry of a refused setting (any case, as PostgreSQL compares names), or undefined. */
export function refusedSetting(name: string): RefusedSetting | undefined {
  return BY_NAME.get(asciiLower(name));
}

/** Settings refused whatever their value (pgperf's own and those naming commands, files, ...). */
export const RESERVED_SETTINGS: readonly string[] = REFUSED_SETTINGS.filter(
  (s) => s.refuses === 'any value',
).map((s) => s.name);

/** Settings that take names but no paths: library lists (pg_stat_statements is a fair benchmark), locales. */
export const NAMES_ONLY_SETTINGS: readonly string[] = REFUSED_SETTINGS.filter(
  (s) => s.refuses === 'paths',
).map((s) => s.name);

/**
 * The words of an extension's setting name (after the dot) that say its value is a command, code, a file,
 * a directory or a connection: for modules pgperf does not list (a PR may add one), refused by name.
 */
export const CUSTOM_SETTING_WORDS: readonly string[] = [
  'command',
  'cmd',
  'program',
  'script',
  'shell',
  'exec',
  'init',
  'library',
  'libraries',
  'lib',
  'module',
  'provider',
  'path',
  'file',
  'filename',
  'dir',
  'directory',
  'directories',
  'conninfo',
];

/**
 * The shape of a setting name, in any case (PostgreSQL folds names to lower case): an identifier, custom
 * ones with one dot. pgperf takes names in lower case only; settingNameProblem says so, naming the setting
 * another spelling would be (a workload's `JIT_Provider` gets that message, not a bare "invalid key").
 */
export const SETTING_NAME = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/i;
/** Longest value accepted (far above any real setting). */
export const MAX_SETTING_VALUE_LENGTH = 1024;

/** Why a setting name cannot be used, or undefined when it can. */
export function settingNameProblem(name: string): string | undefined {
  if (!SETTING_NAME.test(name) || /[A-Z]/.test(name)) {
    const lower = asciiLower(name);
    // PostgreSQL folds names to lower case: say which setting it would be, and whether that one is refused.
    const refused = refusedSetting(lower);
    const alias =
      lower !== name && SETTING_NAME.test(lower)
        ? ` (PostgreSQL would read it as ${lower}${aliasNote(refused)})`
        : '';
    return `"${name}" is not a setting name as pgperf takes them: write it in lower case like shared_buffers or auto_explain.log_min_duration${alias}`;
  }
  const refused = refusedSetting(name);
  if (refused?.refuses === 'any value') {
    return refused.kind === 'pgperf'
      ? `"${name}" is set by pgperf for every cluster and cannot be overridden: ${refused.why}`
      : `"${name}" is refused: ${refused.why}; remove it`;
  }
  const custom = customSettingWord(name);
  if (!refused && custom) {
    return `"${name}" is refused: an extension setting named "${custom}" names a command, code, a file or a directory the server would use as the user that runs it; remove it`;
  }
  return undefined;
}

/** Why a value cannot be written for this setting, or undefined when it can. */
export function settingValueProblem(name: string, value: string): string | undefined {
  if (/[\n\r]/.test(value)) return `the value of "${name}" must be a single line (it contains a line break)`;
  if (value.includes('\0')) return `the value of "${name}" must not contain a NUL character`;
  if (value.length > MAX_SETTING_VALUE_LENGTH) {
    return `the value of "${name}" is ${value.length} characters long (at most ${MAX_SETTING_VALUE_LENGTH})`;
  }
  const refused = refusedSetting(name);
  // A backslash too: Windows paths, and the octal escapes (\057 is "/") of a quoted configuration value.
  if (refused?.refuses === 'paths' && /[/\\]/.test(value)) {
    return `"${name}" takes ${refused.takes}, not paths, got '${value}': ${refused.why}`;
  }
  return undefined;
}

/** The first problem of a setting, or undefined. */
export function settingProblem(name: string, value: string): string | undefined {
  return settingNameProblem(name) ?? settingValueProblem(name, value);
}

/** What to say of a refused setting another spelling names. */
function aliasNote(refused: RefusedSetting | undefined): string {
  if (!refused) return '';
  return refused.refuses === 'paths'
    ? `, which takes ${refused.takes}, not paths`
    : `, which pgperf refuses: ${refused.why}`;
}

/** The word of CUSTOM_SETTING_WORDS in an extension setting's name (after the dot), or undefined. */
function customSettingWord(name: string): string | undefined {
  const dot = name.indexOf('.');
  if (dot < 0) return undefined;
  return name
    .slice(dot + 1)
    .split('_')
    .find((word) => CUSTOM_SETTING_WORDS.includes(word));
}

/** Lower case as PostgreSQL folds setting names: ASCII letters only. */
function asciiLower(name: string): string {
  return name.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
