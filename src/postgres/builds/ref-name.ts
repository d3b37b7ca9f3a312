/**
 * A git ref as a flag or an input may give it: a branch, tag or commit sha, or a revision such as
 * `master~3`. Checked before anything is fetched: a value starting with "-" would be read by git as an
 * option, and one with spaces, quotes or ";" is no ref (git is never run through a shell; this refuses it
 * at once, naming the flag, instead of after a fetch).
 */
const REF_NAME = /^[A-Za-z0-9][A-Za-z0-9._/@^~-]*$/;

/** Why `value` is not a ref `what` (a flag or input, e.g. "--ref") can take; undefined when it is one. */
export function refNameProblem(what: string, value: string): string | undefined {
  return REF_NAME.test(value)
    ? undefined
    : `${what} must be a branch, tag or commit sha (letters, digits, ".", "_", "/", "-", "~", "^"), got '${value}'`;
}
