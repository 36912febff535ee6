import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../src/config.js';

/**
 * The layering of src/ that docs/architecture.md writes down, checked against the imports: no file
 * is part of an import circle, and an import from one folder (or top-level file) of src/ to another
 * goes to a lower layer, but for the exceptions the page lists (at most two). Every import counts,
 * type-only and dynamic ones too: a circle of types is still a circle to a reader.
 */

const SRC = path.join(ROOT, 'src');
const DOC = path.join(ROOT, 'docs', 'architecture.md');

/** Every .ts file of src/, as paths relative to src/ with forward slashes. */
function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [path.relative(SRC, p).split(path.sep).join('/')] : [];
  });
}

/** The files of src/ that a file imports (static, dynamic, type-only, re-exports); packages are left out. */
function importsOf(file: string, known: Set<string>): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const out: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), fileName)).replace(/\.js$/, '.ts');
    const resolved = [target, `${target}.ts`, `${target}/index.ts`].find((t) => known.has(t));
    if (!resolved) throw new Error(`${file} imports ${fileName}, which is no file of src/`);
    out.push(resolved);
  }
  return out;
}

/** A file's unit: its folder directly under src/ (`http/`), or itself when it sits in src/ (`app.ts`). */
const unitOf = (file: string) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

/** The page's layer table (`| 0 | \`config.ts\`, \`errors.ts\` | ... |`) and its exceptions list. */
function readLayering(): { layerOf: Map<string, number>; exceptions: string[] } {
  const text = fs.readFileSync(DOC, 'utf8');
  const layerOf = new Map<string, number>();
  for (const line of text.split('\n')) {
    const row = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(line);
    if (!row) continue;
    for (const [, unit] of row[2]!.matchAll(/`([^`]+)`/g)) {
      if (layerOf.has(unit!)) throw new Error(`${unit} is in two layers of docs/architecture.md`);
      layerOf.set(unit!, Number(row[1]));
    }
  }
  const section = /^## Upward imports allowed\n([\s\S]*?)(?=^## |$(?![\s\S]))/m.exec(text);
  if (!section) throw new Error('docs/architecture.md has no "## Upward imports allowed" section');
  const exceptions = [...section[1]!.matchAll(/^- `([^`]+ -> [^`]+)`/gm)].map((m) => m[1]!);
  return { layerOf, exceptions };
}

/** The import circles among the files: strongly connected components of more than one file, or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** `from -> to` for each import from a unit to another that is not in a lower layer. */
function upwardImports(graph: Map<string, string[]>, layerOf: Map<string, number>): string[] {
  const out = new Set<string>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [unitOf(file), unitOf(target)];
      if (from !== to && layerOf.get(to)! >= layerOf.get(from)!) out.add(`${file} -> ${target}`);
    }
  }
  return [...out].sort();
}

describe('the layering of src/ (docs/architecture.md)', () => {
  const files = sourceFiles();
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
  const { layerOf, exceptions } = readLayering();

  it('puts every folder and top-level file of src/ in a layer, and names nothing else', () => {
    const units = new Set(files.map(unitOf));
    expect([...units].filter((u) => !layerOf.has(u)).sort()).toEqual([]);
    expect([...layerOf.keys()].filter((u) => !units.has(u)).sort()).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('imports downward only, but for the listed exceptions (at most two)', () => {
    expect(exceptions.length).toBeLessThanOrEqual(2);
    expect(upwardImports(graph, layerOf).filter((i) => !exceptions.includes(i))).toEqual([]);
  });

  // The checks above would pass on a graph they fail to read: make sure they can fail.
  it('finds a circle and an upward import when there is one', () => {
    const a = 'db/a.ts';
    const b = 'db/b.ts';
    expect(circles(new Map([[a, [b]], [b, [a]]]))).toEqual([[a, b]]);
    expect(circles(new Map([[a, [a]]]))).toEqual([[a]]);
    expect(upwardImports(new Map([['db/queryPool.ts', ['http/errors.ts']]]), layerOf)).toEqual(['db/queryPool.ts -> http/errors.ts']);
    expect(upwardImports(new Map([['http/errors.ts', ['db/queryPool.ts']]]), layerOf)).toEqual([]);
  });

  it('reads the imports of every kind', () => {
    const imports = importsOf('app.ts', known);
    expect(imports).toContain('http/errors.ts');
    expect(imports).toContain('api/openapi.ts');
    // A type-only import counts: http/account.ts holds nothing but a type.
    expect(graph.get('http/requestLog.ts')).toContain('http/account.ts');
    expect(graph.size).toBeGreaterThan(100);
  });
});
