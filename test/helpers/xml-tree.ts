/**
 * A strict reader of the small XML documents pgperf writes (waterfall.svg), for tests: it throws on what
 * an XML parser would refuse in them (a tag not closed or closed out of order, an attribute unquoted or
 * given twice, a raw `<` or a `&` that starts no reference in text or in an attribute, text outside the
 * root) and returns the element tree with the references decoded. Not a full XML parser: no DTD, CDATA,
 * comments or processing instructions but the XML declaration, which the documents it reads do not use.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (its children's excluded), decoded. */
  text: string;
}

const NAME = '[A-Za-z_][A-Za-z0-9_.:-]*';
const REFERENCE = /&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;

function decode(raw: string, where: string): string {
  if (raw.includes('<')) throw new Error(`a raw '<' in ${where}: ${JSON.stringify(raw)}`);
  if (raw.replace(REFERENCE, '').includes('&')) {
    throw new Error(`a '&' that starts no reference in ${where}: ${JSON.stringify(raw)}`);
  }
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return raw.replace(REFERENCE, (r) => {
    const body = r.slice(1, -1);
    if (body.startsWith('#x')) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(Number(body.slice(1)));
    return named[body]!;
  });
}

export function parseXml(text: string): XmlElement {
  const body = text.replace(/^<\?xml [^?]*\?>\s*/, '');
  const token = new RegExp(`<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*"[^"]*")*)\\s*(/?)>|([^<]+)|(<)`, 'g');
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  for (const m of body.matchAll(token)) {
    const [, closing, name, attrText, selfClosing, chars, stray] = m;
    if (stray)
      throw new Error(
        `a '<' that starts no tag at ${m.index}: ${JSON.stringify(body.slice(m.index, m.index + 40))}`,
      );
    if (chars !== undefined) {
      const top = stack.at(-1);
      if (!top) {
        if (chars.trim() !== '') throw new Error(`text outside the root: ${JSON.stringify(chars)}`);
        continue;
      }
      top.text += decode(chars, `the text of <${top.name}>`);
      continue;
    }
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText!.matchAll(new RegExp(`(${NAME})\\s*=\\s*"([^"]*)"`, 'g'))) {
      if (a[1]! in attrs) throw new Error(`<${name}> has attribute ${a[1]} twice`);
      attrs[a[1]!] = decode(a[2]!, `attribute ${a[1]} of <${name}>`);
    }
    const element: XmlElement = { name: name!, attrs, children: [], text: '' };
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else if (root) throw new Error(`a second root <${name}>`);
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (stack.length > 0) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element of the tree (the root first, depth first) that `keep` keeps. */
export function findAll(root: XmlElement, keep: (e: XmlElement) => boolean): XmlElement[] {
  return [...(keep(root) ? [root] : []), ...root.children.flatMap((c) => findAll(c, keep))];
}
