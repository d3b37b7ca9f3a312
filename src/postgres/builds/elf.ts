/**
 * Just enough of ELF64 (little-endian, what x86-64 and aarch64 Linux build) to compare two builds'
 * compiled code: the section table, the GNU build id (a hash of the whole file, which differs whenever
 * anything does, so it is masked before comparing) and the function symbols of `.symtab` with their
 * bytes. Anything else (32-bit, big-endian, truncated) is "not ELF64" and compared as plain bytes.
 * Layout: the System V gABI, "ELF Header", "Sections" and "Symbol Table" (e_shoff at 0x28, Elf64_Shdr
 * 64 bytes, Elf64_Sym 24 bytes).
 */

const SHT_SYMTAB = 2;
const SHT_NOTE = 7;
const STT_FUNC = 2;
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;

interface Section {
  name: string;
  type: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

/** A function symbol and its machine code. */
export interface ElfFunction {
  name: string;
  size: number;
  code: Buffer;
}

/** True for a little-endian ELF64 file whose section table lies inside it. */
export function isElf64(bytes: Buffer): boolean {
  return (
    bytes.length >= 64 &&
    bytes[0] === 0x7f &&
    bytes.toString('latin1', 1, 4) === 'ELF' &&
    bytes[4] === 2 && // ELFCLASS64
    bytes[5] === 1 && // ELFDATA2LSB
    sections(bytes) !== undefined
  );
}

function sections(bytes: Buffer): Section[] | undefined {
  const shoff = Number(bytes.readBigUInt64LE(0x28));
  const shentsize = bytes.readUInt16LE(0x3a);
  const shnum = bytes.readUInt16LE(0x3c);
  const shstrndx = bytes.readUInt16LE(0x3e);
  if (shnum === 0 || shentsize < 64 || shoff + shnum * shentsize > bytes.length || shstrndx >= shnum) {
    return undefined;
  }
  const raw = Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * shentsize;
    return {
      nameOff: bytes.readUInt32LE(at),
      type: bytes.readUInt32LE(at + 4),
      addr: Number(bytes.readBigUInt64LE(at + 0x10)),
      offset: Number(bytes.readBigUInt64LE(at + 0x18)),
      size: Number(bytes.readBigUInt64LE(at + 0x20)),
      link: bytes.readUInt32LE(at + 0x28),
      entsize: Number(bytes.readBigUInt64LE(at + 0x38)),
    };
  });
  const names = raw[shstrndx]!;
  if (names.offset + names.size > bytes.length) return undefined;
  return raw.map((s) => ({
    ...s,
    name: cString(bytes, names.offset + s.nameOff, names.offset + names.size),
  }));
}

function cString(bytes: Buffer, start: number, limit: number): string {
  if (start >= limit) return '';
  const end = bytes.indexOf(0, start);
  return bytes.toString('latin1', start, end < 0 || end > limit ? limit : end);
}

/** A copy with the contents of the build-id note zeroed (the file itself when it has none). */
export function withoutBuildId(bytes: Buffer): Buffer {
  const notes = (sections(bytes) ?? []).filter(
    (s) => s.type === SHT_NOTE && s.name === '.note.gnu.build-id' && s.offset + s.size <= bytes.length,
  );
  if (notes.length === 0) return bytes;
  const copy = Buffer.from(bytes);
  for (const s of notes) copy.fill(0, s.offset, s.offset + s.size);
  return copy;
}

/**
 * The defined function symbols of `.symtab` with their code, in symbol-table order; a static function
 * whose name repeats is keyed "name#2", "name#3", ... so both builds' keys pair up. Empty when the file
 * was stripped (no .symtab).
 */
export function elfFunctions(bytes: Buffer): ElfFunction[] {
  const all = sections(bytes) ?? [];
  const out: ElfFunction[] = [];
  const seen = new Map<string, number>();
  for (const symtab of all.filter((s) => s.type === SHT_SYMTAB)) {
    const strtab = all[symtab.link];
    if (!strtab || symtab.entsize < 24 || symtab.offset + symtab.size > bytes.length) continue;
    for (let at = symtab.offset; at + 24 <= symtab.offset + symtab.size; at += symtab.entsize) {
      const info = bytes[at + 4]!;
      const shndx = bytes.readUInt16LE(at + 6);
      const value = Number(bytes.readBigUInt64LE(at + 8));
      const size = Number(bytes.readBigUInt64LE(at + 16));
      if ((info & 0xf) !== STT_FUNC || shndx === SHN_UNDEF || shndx >= SHN_LORESERVE || size === 0) continue;
      const section = all[shndx];
      if (!section) continue;
      const start = section.offset + (value - section.addr);
      if (start < 0 || start + size > bytes.length) continue;
      const base = cString(bytes, strtab.offset + bytes.readUInt32LE(at), strtab.offset + strtab.size);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      out.push({ name: n === 1 ? base : `${base}#${n}`, size, code: bytes.subarray(start, start + size) });
    }
  }
  return out;
}
