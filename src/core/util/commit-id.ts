/** A commit id as git abbreviates it in logs and messages: its first 7 hex digits. */
export function short(sha: string): string {
  return sha.slice(0, 7);
}
