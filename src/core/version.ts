/** Kept in step with package.json by hand (checked by a unit test). */
export const PGPERF_VERSION = '0.1.0';
