/**
 * A connection string with its password replaced by ***, for every message and log line:
 * "postgresql://app:s3cret@db:5432/perf" -> "postgresql://app:***@db:5432/perf". Works on strings that
 * do not parse as URLs too (the password is whatever lies between the first ":" of the user part and
 * the last "@"); a `password=` query parameter is masked as well.
 */
export function maskUrl(url: string): string {
  let out = url;
  const scheme = out.indexOf('://');
  if (scheme >= 0) {
    const at = out.lastIndexOf('@');
    if (at > scheme) {
      const userinfo = out.slice(scheme + 3, at);
      const colon = userinfo.indexOf(':');
      if (colon >= 0) out = `${out.slice(0, scheme + 3)}${userinfo.slice(0, colon)}:***${out.slice(at)}`;
    }
  }
  return out.replace(/([?&]password=)[^&#]*/gi, '$1***');
}
