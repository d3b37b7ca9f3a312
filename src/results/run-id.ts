import { randomBytes } from 'node:crypto';

/**
 * A run's id: its start time (UTC, to the second) and 8 random hex digits, e.g. 20261123T132000Z-1a2b3c4d.
 * Sorts by time, is safe as a file name, and two runners starting in the same second still differ.
 */
export function newRunId(startedAt: Date): string {
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** The form newRunId produces (and the store accepts as a file name). */
export const RUN_ID_PATTERN = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;
