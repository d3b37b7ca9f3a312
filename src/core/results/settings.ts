/**
 * Which postgresql.conf settings a workload file or `--set` may change, and what a value may look
 * like. pgperf writes every value into one line of pgperf.conf, so a value is a single line without NUL
 * (a newline would smuggle in a second setting, e.g. an `hba_file`), and the settings that decide where
 * the server listens, which files it reads or which shell commands it runs are pgperf's own.
 */

/** Settings pgperf owns: the cluster would not be reachable, comparable or contained otherwise. */
export const RESERVED_SETTINGS: readonly string[] = [
  // Where the server listens: pgperf picks a private socket directory and a free port.
  'port',
  'listen_addresses',
  'unix_socket_directories',
  // Which files it reads: the cluster's own, written by pgperf.
  'data_directory',
  'hba_file',
  'ident_file',
  'config_file',
  'external_pid_file',
  'include',
  'include_dir',
  'include_if_exists',
  // Shell commands the server runs, and where it loads code from.
  'archive_command',
  'archive_library',
  'restore_command',
  'archive_cleanup_command',
  'recovery_end_command',
  'ssl_passphrase_command',
  'dynamic_library_path',
];

/**
 * Library lists (pg_stat_statements overhead is a fair benchmark) take names of the install's own
 * libraries only, not paths.
 */
export const LIBRARY_SETTINGS: readonly string[] = [
  'shared_preload_libraries',
  'session_preload_libraries',
  'local_preload_libraries',
];

/** A setting name as PostgreSQL spells it: lower-case identifier, custom ones with one dot. */
export const SETTING_NAME = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;
/** Longest value accepted (far above any real setting). */
export const MAX_SETTING_VALUE_LENGTH = 1024;

/** Why a setting name cannot be used, or undefined when it can. */
export function settingNameProblem(name: string): string | undefined {
  if (!SETTING_NAME.test(name)) {
    return `"${name}" is not a setting name (expected a lower-case identifier like shared_buffers or auto_explain.log_min_duration)`;
  }
  if (RESERVED_SETTINGS.includes(name) || name.startsWith('include')) {
    return `"${name}" is set by pgperf for every cluster and cannot be overridden`;
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
  if (LIBRARY_SETTINGS.includes(name) && /[/\\]/.test(value)) {
    return `"${name}" takes library names (e.g. pg_stat_statements), not paths, got '${value}'`;
  }
  return undefined;
}

/** The first problem of a setting, or undefined. */
export function settingProblem(name: string, value: string): string | undefined {
  return settingNameProblem(name) ?? settingValueProblem(name, value);
}
