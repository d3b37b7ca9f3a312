/**
 * Loaded before the CLI (node --import): starts a read of PGPERF_TEST_STUCK_READ, a FIFO nobody writes,
 * with Node's plain readFile, so one thread of libuv's pool waits in open() for ever, as a read of a hung
 * network mount does. pgperf's own reads never open a FIFO; this stands in for a mount it cannot tell.
 */
import { readFile } from 'node:fs/promises';

const file = process.env.PGPERF_TEST_STUCK_READ;
if (file) void readFile(file).catch(() => {});
