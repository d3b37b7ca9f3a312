/**
 * A stable 64-bit FNV-1a hash of a text, as 16 hex digits: an id that is the same on every machine and in
 * every version, for values whose id only has to tell them apart (not a cryptographic digest).
 */
const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = (1n << 64n) - 1n;

export function stableHash(text: string): string {
  let hash = OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  }
  return hash.toString(16).padStart(16, '0');
}
