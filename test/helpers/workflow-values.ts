/** Values of a parsed GitHub Actions workflow (its YAML as JavaScript), for the tests that check workflows. */

/** A job's `needs:` as a list (it may be one name, a list, or absent). */
export const needsOf = (job: { needs?: string | string[] }): string[] =>
  job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];

/** Every string anywhere in a value. */
export const strings = (v: unknown): string[] =>
  typeof v === 'string'
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(strings)
      : v && typeof v === 'object'
        ? Object.values(v).flatMap(strings)
        : [];
