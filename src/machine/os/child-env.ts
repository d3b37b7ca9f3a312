/**
 * The environment of every child process pgperf starts (initdb, postgres, pgbench and its `\shell`
 * commands, sysbench, git, the build): an allow-list of what programs need to run, never the runner's
 * secrets. On a GitHub runner the parent's environment holds the token (`INPUT_GITHUB-TOKEN`,
 * `GITHUB_TOKEN`), the runtime tokens (`ACTIONS_*`) and perhaps a store URL with a password; a workload
 * script (`\shell env`) or a PR's configure script would otherwise read them.
 */

/** Variables passed through from pgperf's own environment. */
const ALLOWED_NAMES = new Set(['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'TERM']);
/** Prefixes passed through (locale categories: LC_ALL, LC_CTYPE, ...). */
const ALLOWED_PREFIXES = ['LC_'];

/**
 * Names never passed to a child, whoever set them (also when a caller passes them explicitly): the
 * action's inputs, the runner's tokens and anything named like a credential.
 */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    upper.startsWith('INPUT_') ||
    upper.startsWith('ACTIONS_') ||
    upper === 'GITHUB_TOKEN' ||
    upper === 'PGPERF_STORE' ||
    upper.includes('TOKEN') ||
    upper.includes('SECRET') ||
    upper.includes('PASSWORD') ||
    upper.includes('PASSWD') ||
    upper.includes('CREDENTIAL') ||
    upper.endsWith('_KEY') ||
    upper === 'PGPASSFILE'
  );
}

/** The allow-listed part of an environment (PG* variables of the parent are not passed: pgperf sets its own). */
export function allowedEnvironment(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || isSecretName(name)) continue;
    if (ALLOWED_NAMES.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p))) env[name] = value;
  }
  return env;
}

/**
 * A child's environment: the allow-listed part of the parent's, with the caller's explicit variables
 * on top, minus every secret-looking name (also explicit ones).
 */
export function childEnvironment(
  parent: NodeJS.ProcessEnv,
  explicit: NodeJS.ProcessEnv | undefined,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...allowedEnvironment(parent) };
  for (const [name, value] of Object.entries(explicit ?? {})) {
    if (value !== undefined && !isSecretName(name)) env[name] = value;
  }
  return env;
}

/**
 * The strings to mask in logs for a set of secret values: each value, and for URLs (a store's
 * connection string) also the password on its own, raw and percent-decoded.
 */
export function secretsToMask(values: ReadonlyArray<string | undefined>): string[] {
  const out = new Set<string>();
  for (const raw of values) {
    const value = raw?.trim();
    if (!value) continue;
    out.add(value);
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:([^@/?#]+)@/i.exec(value);
    if (m?.[1]) {
      out.add(m[1]);
      try {
        out.add(decodeURIComponent(m[1]));
      } catch {
        // Not percent-encoded: the raw form is masked already.
      }
    }
  }
  return [...out];
}
