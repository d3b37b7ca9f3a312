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
