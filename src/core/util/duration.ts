/** "45m", "1h", "1.5h", "900s" or "900" as seconds; undefined when the text is not such a duration. */
export function parseDurationS(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|min|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { s: 1, m: 60, min: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'min' | 'h'];
  const seconds = Number(m[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}
