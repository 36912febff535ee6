/**
 * The explorer page's browser files (web/explorer/) bundled by esbuild into one script and one
 * stylesheet with content-hashed names, and the page itself (index.html) naming them: a changed
 * bundle gets a new URL, so the server can send the assets with a year's immutable caching while
 * the page is revalidated on every load. scripts/build-dist.ts writes them into dist/explorer/assets
 * for `node dist/server.js`; tests write them into .tmp/explorer-assets (src/explorer/assets.ts).
 * Usage: tsx scripts/build-explorer.ts [output folder, default .tmp/explorer-assets]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web', 'explorer');

/** Writes index.html and the hashed assets into outDir, replacing what was there; returns the asset names. */
export async function buildExplorer(outDir: string): Promise<{ js: string; css: string }> {
  // Built beside outDir and renamed into place: a server (or a parallel test) never sees half a build.
  const staging = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(staging, { recursive: true });
  const result = await build({
    entryPoints: [path.join(WEB, 'main.ts'), path.join(WEB, 'explorer.css')],
    outdir: staging,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`esbuild wrote ${outputs.join(', ')}: expected one .js and one .css`);
  const page = fs.readFileSync(path.join(WEB, 'page.html'), 'utf8').replace('{{CSS}}', `assets/${css}`).replace('{{JS}}', `assets/${js}`);
  fs.writeFileSync(path.join(staging, 'index.html'), page);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  fs.renameSync(staging, outDir);
  return { js, css };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.resolve(process.argv[2] ?? path.join(ROOT, '.tmp', 'explorer-assets'));
  const names = await buildExplorer(out);
  console.log(`explorer page in ${path.relative(ROOT, out) || out}/: ${names.js}, ${names.css}`);
}
