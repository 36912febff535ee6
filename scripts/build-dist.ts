/**
 * `make build`: compiles src/ into dist/ for `node dist/server.js`, which then needs only the
 * production dependencies, sql/ and the data build. esbuild translates each module on its own
 * (no bundle: the paths stay those of src/, where the server finds its neighbours) in about a
 * second; `make test` type-checks with tsc. Files of src/ that are not TypeScript (the docs page's
 * script) are copied beside the modules that serve them; the explorer page is bundled from web/
 * (scripts/build-explorer.ts). Last, dist/build-info.json: the fingerprint of the compiled code,
 * the page, sql/ and package-lock.json that the server puts in its ETags (src/http/caching.ts).
 * Usage: tsx scripts/build-dist.ts [output folder, default dist]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../src/config.js';
import { buildExplorer } from './build-explorer.js';

const src = path.join(ROOT, 'src');
const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'));
const filesUnder = (dir: string) =>
  (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile())
    .sort();

const started = Date.now();
fs.rmSync(out, { recursive: true, force: true });
const sources = filesUnder(src);
await build({
  entryPoints: sources.filter((f) => f.endsWith('.ts')),
  outdir: out,
  outbase: src,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
for (const f of sources.filter((f) => !f.endsWith('.ts'))) {
  fs.mkdirSync(path.dirname(path.join(out, path.relative(src, f))), { recursive: true });
  fs.copyFileSync(f, path.join(out, path.relative(src, f)));
}
// The explorer page's bundle (web/explorer/), where src/explorer/routes.ts looks for it.
await buildExplorer(path.join(out, 'explorer', 'assets'));

const hash = createHash('sha1');
for (const f of [...filesUnder(out).filter((f) => !f.endsWith('.map')), ...filesUnder(path.join(ROOT, 'sql')), path.join(ROOT, 'package-lock.json')]) {
  const name = f.startsWith(out) ? path.join('dist', path.relative(out, f)) : path.relative(ROOT, f);
  hash.update(name).update('\0').update(fs.readFileSync(f)).update('\0');
}
const info = { code_id: hash.digest('base64url'), built: new Date().toISOString() };
fs.writeFileSync(path.join(out, 'build-info.json'), JSON.stringify(info, null, 2) + '\n');
console.log(`built ${path.relative(ROOT, out) || out}/ in ${((Date.now() - started) / 1000).toFixed(1)} s (code ${info.code_id})`);
