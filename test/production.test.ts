import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../src/config.js';

/**
 * The production start: `make build`'s output run by plain node beside a node_modules holding only
 * the production dependencies (as `npm ci --omit=dev` leaves it), with no src/, test/ or
 * devDependencies in reach. The packages are symlinks into the repository's node_modules, so node
 * runs with --preserve-symlinks: a package's own imports then resolve inside the linked set, as
 * they would after npm ci --omit=dev, instead of beside the devDependencies its real path has.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-production-'));
const dist = path.join(tmp, 'dist');
let server: ChildProcess | undefined;
afterAll(() => {
  if (server?.exitCode === null) server.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** The installed packages `npm ci --omit=dev` would keep, linked into tmp/node_modules. */
function linkProductionDependencies() {
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' }).stdout;
  const top = path.join(ROOT, 'node_modules') + path.sep;
  const names = new Set<string>();
  for (const line of listed.split('\n')) {
    if (!line.startsWith(top)) continue;
    const parts = path.relative(top, line).split(path.sep);
    names.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  for (const name of names) {
    const link = path.join(tmp, 'node_modules', name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(top, name), link);
  }
  return names;
}

describe('production build', () => {
  it('compiles src/ to dist/ with the docs page script and a build-info fingerprint', () => {
    const built = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'scripts', 'build-dist.ts'), dist], { cwd: ROOT, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    expect(fs.existsSync(path.join(dist, 'server.js'))).toBe(true);
    expect(fs.existsSync(path.join(dist, 'ingest', 'autobuildProcess.js'))).toBe(true);
    expect(fs.existsSync(path.join(dist, 'http', 'docsPage', 'init.js'))).toBe(true);
    expect(fs.existsSync(path.join(dist, 'explorer', 'assets', 'index.html'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dist, 'build-info.json'), 'utf8')).code_id).toMatch(/^[\w-]{20,}$/);
    // What ships: no test or bench helper (the NetCDF-4 writer of the fixtures and of the archive's
    // scale model, the sample fixture sets and the local PostgreSQL/Redis servers live under
    // scripts/, which test/ and bench/ share). The NetCDF-3 writer ships: make fetch VIA=ncss
    // stitches the parts of a split subset with it (src/ingest/netcdf/netcdf3Writer.ts).
    const shipped = fs.readdirSync(dist, { recursive: true }) as string[];
    expect(shipped.filter((f) => /netcdf4Writer|fixtureFiles|fixtureSets|landMask|archiveModel|netcdf[/\\]fixtures|localServers/.test(f))).toEqual([]);
  }, 60_000);

  it('imports nothing but Node built-ins, production dependencies and its own modules', () => {
    const problems: string[] = [];
    for (const rel of (fs.readdirSync(dist, { recursive: true }) as string[]).filter((f) => f.endsWith('.js'))) {
      const file = path.join(dist, rel);
      const text = fs.readFileSync(file, 'utf8');
      const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\breq\s*\(\s*|\.resolve\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
      for (const s of specifiers) {
        if (s.startsWith('.')) {
          if (!path.resolve(path.dirname(file), s).startsWith(dist + path.sep)) problems.push(`${rel}: ${s} leaves dist/`);
        } else if (!isBuiltin(s)) {
          const name = s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!;
          if (!(name in pkg.dependencies)) problems.push(`${rel}: ${s} is not a production dependency`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('starts with node dist/server.js and only the production dependencies, serves reference and climate data, and stops on SIGTERM', async () => {
    const linked = linkProductionDependencies();
    expect(linked.has('@duckdb/node-api')).toBe(true);
    expect(linked.has('tsx') || linked.has('vitest') || linked.has('esbuild')).toBe(false);
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(tmp, 'package.json'));
    fs.symlinkSync(path.join(ROOT, 'sql'), path.join(tmp, 'sql'));
    // A copy: the compiled summaries command rewrites it in place.
    const dataDir = path.join(tmp, 'data-build');
    fs.cpSync(inject('dataDir'), dataDir, { recursive: true });

    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const compiled = (command: string, args: string[] = []) =>
      spawnSync(process.execPath, ['--preserve-symlinks', path.join(dist, command), ...args], { cwd: tmp, env, encoding: 'utf8' });

    // The operator commands, compiled: an account and its token (the last line), the summaries.
    const user = compiled('cli/user.js', ['--email', 'prod@example.com', '--password', 'prod-password']);
    expect(user.status, user.stderr).toBe(0);
    const token = user.stdout.trim().split('\n').pop()!;
    const summaries = compiled('cli/summaries.js');
    expect(summaries.status, summaries.stderr).toBe(0);
    expect(summaries.stdout).toMatch(/^Wrote the summaries of [1-9]\d* partitions/);
    // The map files alone: written again where a file of an older layout stood (the layout is in its key).
    const mapDir = path.join(dataDir, 'maps', 'NEX-GDDP', 'RCP85');
    const mapNames = fs.readdirSync(mapDir).sort();
    const frostFile = mapNames.find((n) => n.startsWith('frost_days-'))!;
    fs.renameSync(path.join(mapDir, frostFile), path.join(mapDir, 'frost_days-000000000000.parquet'));
    const mapFiles = compiled('cli/mapFiles.js');
    expect(mapFiles.status, mapFiles.stderr).toBe(0);
    expect(mapFiles.stdout).toMatch(/^Wrote [1-9]\d* map files/);
    expect(fs.readdirSync(mapDir).sort()).toEqual(mapNames);
    // Every import of the ingest command resolved: it got as far as checking its arguments.
    const ingest = compiled('cli/ingest.js');
    expect(ingest.status, ingest.stderr).toBe(2);
    expect(ingest.stderr).toMatch(/DATASET \(--dataset\) and SRC \(--src\) are required/);

    server = spawn(process.execPath, ['--preserve-symlinks', path.join(dist, 'server.js')], { cwd: tmp, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      server!.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const record = JSON.parse(line) as { msg?: string; url?: string };
          if (record.msg === 'listening') resolve(Number(new URL(record.url!).port));
        }
      });
      server!.once('exit', (code) => reject(new Error(`node dist/server.js exited with ${code}: ${stderr}`)));
    });
    const get = async (p: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${p}`, { headers: { authorization: `Token ${token}` } });
      return { status: res.status, body: await res.text() };
    };
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    const city = await get('/api/city/?search=new%20york');
    expect(city.status).toBe(200);
    expect(JSON.parse(city.body).features[0].properties.name).toBe('New York City');
    const frost = await get('/api/climate-data/5128581/RCP85/indicator/frost_days/');
    expect(frost.status).toBe(200);
    expect(Object.keys(JSON.parse(frost.body).data).length).toBeGreaterThan(0);
    expect((await get('/api/climate-data/5128581/RCP85/?years=2050')).status).toBe(200);
    // An area: its outline is clipped on the compiled clipping thread (areas/coverWorker.js).
    const area = await get('/api/climate-data/area/RCP85/indicator/frost_days/?city=5128581&years=2050');
    expect(area.status, area.body).toBe(200);
    expect(JSON.parse(area.body).area.properties.cells_with_data).toBeGreaterThan(1);
    expect((await get('/docs/init.js')).status).toBe(200);
    expect((await get('/openapi.json')).status).toBe(200);
    // The explorer page and the bundle it names, from dist/ (no esbuild, no web/ in reach).
    const explorer = await get('/explore/');
    expect(explorer.status).toBe(200);
    const scriptPath = /<script defer src="(assets\/[^"]+\.js)">/.exec(explorer.body)?.[1];
    expect(scriptPath).toBeDefined();
    const bundle = await get(`/explore/${scriptPath}`);
    expect(bundle.status).toBe(200);
    expect(bundle.body).toContain('/api/climate-data/');

    server.kill('SIGTERM');
    const code = await new Promise((resolve) => server!.once('exit', resolve));
    expect(code, stderr).toBe(0);
  }, 90_000);
});
