/**
 * The escaping of untrusted text for HTML pages (the history site): one function for text
 * and quoted attribute values, one for data embedded in a script element. Links take their URLs through
 * safeUrl (markdown-escape.ts), the one URL check of every markup.
 */
import { plainText } from '../util/plain-text.js';

const HTML_REFERENCES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Text for HTML element content and quoted attribute values: control and bidirectional-formatting
 * characters as spaces (plainText), then the five characters that can start markup or end an attribute
 * as references.
 *
 * @example escapeHtml('<b title="x">') === '&lt;b title=&quot;x&quot;&gt;'
 */
export function escapeHtml(text: string): string {
  return plainText(text).replace(/[&<>"']/g, (c) => HTML_REFERENCES[c]!);
}

/**
 * A value as JSON that is safe inside a `<script>` element: `<` escaped, so no string in it can close the
 * element (`</script>`) or open a comment (`<!--`); U+2028 and U+2029 escaped for older parsers, and the
 * control and bidirectional-formatting characters JSON.stringify leaves as they are (DEL, C1, bidi marks
 * and overrides) escaped too, so the page's source holds none. The strings read back the same with
 * JSON.parse.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
