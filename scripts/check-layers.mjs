// Checks src/ against scripts/layers.mjs: every relative import points down (to its own room, a room below
// it in its storey, or a lower storey; never to another room at the same height, such as one tool's folder
// from another's), and no files import each other in a circle. Exits 1 naming each offending import.
// Run: node scripts/check-layers.mjs (part of npm run lint).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STOREYS } from './layers.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const src = path.join(root, 'src');

/**
 * Where a file stands: its storey's index, its room's index in that storey, and the room's name. A
 * sub-folder the storey does not list is a room at the height of its '*' (a tool's folder under drivers/).
 */
function placeOf(file) {
  const rel = path.relative(src, file).split(path.sep);
  if (rel.length === 1) return { storey: STOREYS.length, room: 0, name: 'src' }; // an entry file
  const storey = STOREYS.findIndex((s) => s.name === rel[0]);
  if (storey < 0) throw new Error(`src/${rel[0]} is not a storey of scripts/layers.mjs`);
  const folder = rel.slice(1, -1).join('/');
  const { folders } = STOREYS[storey];
  const wild = folder !== '' && !folder.includes('/') && !folders.includes(folder);
  const room = folders.indexOf(wild ? '*' : folder);
  if (room < 0)
    throw new Error(
      `src/${rel.slice(0, -1).join('/')} is not a room of storey ${rel[0]} in scripts/layers.mjs`,
    );
  return { storey, room, name: rel.slice(0, -1).join('/') };
}

function walk(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The files of src/ that `text`, the source of the file at `file`, imports (static, dynamic and type-only
 * imports and re-exports alike).
 */
export function importsIn(text, file) {
  const found = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
    found.push(path.resolve(path.dirname(file), m[1].replace(/\.js$/, '.ts')));
  }
  return found.filter((t) => t.startsWith(src + path.sep));
}

/** The imports of every file of src/ (absolute paths). */
export function importGraph() {
  return new Map(walk(src).map((f) => [f, importsIn(readFileSync(f, 'utf8'), f)]));
}

/** What breaks the storeys in an import graph (file -> files it imports, absolute paths under src/). */
export function checkLayers(graph = importGraph()) {
  const files = [...graph.keys()];
  const name = (f) => path.relative(root, f);
  const problems = [];
  for (const [file, targets] of graph) {
    const from = placeOf(file);
    for (const target of targets) {
      const to = placeOf(target);
      // Rooms at one height ('*') are apart: only a room's own files share its height.
      const down =
        to.storey < from.storey ||
        (to.storey === from.storey && (to.room < from.room || to.name === from.name));
      if (!down)
        problems.push(`${name(file)} imports ${name(target)}: src/${to.name} is not below src/${from.name}`);
    }
  }
  const state = new Map(); // 1: on the path, 2: done
  const pathNow = [];
  const visit = (f) => {
    state.set(f, 1);
    pathNow.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 1)
        problems.push(`circle: ${[...pathNow.slice(pathNow.indexOf(t)), t].map(name).join(' -> ')}`);
      else if (!state.has(t)) visit(t);
    }
    pathNow.pop();
    state.set(f, 2);
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkLayers();
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`${problems.length} import(s) break the storeys of scripts/layers.mjs`);
    process.exit(1);
  }
  console.log('src/: every import points down its storeys; no circles');
}
