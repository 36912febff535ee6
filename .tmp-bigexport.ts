import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const ROOT = '/work/main';
const DATA_DIR = path.join(ROOT, 'data', 'build');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssKb = (pid: number) => { try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]); } catch { return 0; } };
function tree(pid: number): number[] { const out = [pid]; for (let i = 0; i < out.length; i++) { try { for (const t of fs.readdirSync(`/proc/${out[i]}/task`)) { const c = fs.readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8').trim(); if (c) out.push(...c.split(/\s+/).map(Number)); } } catch {} } return out; }
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bigexport-'));
const env = { ...process.env, LOG_LEVEL: 'warn', DATA_DIR, ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'), EXPORT_DIR: path.join(tmp, 'exports'), THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '10000000/day', EXPORT_MAX_BYTES: String(100e9) };
const token = execFileSync(process.execPath, [path.join(ROOT, 'dist', 'cli', 'user.js'), '--email', 'b@example.com', '--password', 'bench-password'], { cwd: ROOT, env, encoding: 'utf8' }).trim().split('\n').pop()!;
const port = 18931;
const child = spawn(process.execPath, ['--max-old-space-size=256', path.join(ROOT, 'dist', 'server.js')], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] });
const url = `http://127.0.0.1:${port}`;
const api = async (method: string, p: string, body?: object) => { const r = await fetch(url + p, { method, headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }); return (await r.json()) as any; };
for (;;) { try { if ((await fetch(`${url}/healthz`)).ok) break; } catch {} await sleep(100); }
for (const format of (process.argv[2] ?? 'parquet,netcdf').split(',')) {
  const body = { dataset: 'NEX-GDDP', scenarios: ['RCP45', 'RCP85'], variables: ['tasmax', 'tasmin', 'pr'], area: { bbox: "-125,24,-66.5,49.5" }, format };
  const t0 = performance.now();
  const posted = await api('POST', '/api/export/', body);
  if (!posted.id) { console.log(format, JSON.stringify(posted)); continue; }
  let peakServer = 0, peakAll = 0, job: any, lastProgress = -1, lastMove = performance.now(), longest = 0;
  for (;;) {
    peakServer = Math.max(peakServer, rssKb(child.pid!));
    peakAll = Math.max(peakAll, tree(child.pid!).reduce((n, p) => n + rssKb(p), 0));
    job = await api('GET', `/api/export/${posted.id}/`);
    if (job.progress !== lastProgress) { longest = Math.max(longest, performance.now() - lastMove); lastMove = performance.now(); lastProgress = job.progress; }
    if (!['queued', 'running'].includes(job.status)) break;
    await sleep(200);
  }
  const s = (performance.now() - t0) / 1000;
  const bytes = (job.files ?? []).reduce((n: number, f: any) => n + f.bytes, 0);
  console.log(`${format}: ${job.status} ${job.error ?? ''} values ${job.plan?.values ?? posted.plan?.values ?? '?'} in ${s.toFixed(1)} s; peak RSS server ${(peakServer / 1024).toFixed(0)} MB, all ${(peakAll / 1024).toFixed(0)} MB; files ${(bytes / 1e6).toFixed(0)} MB; longest without progress ${(longest / 1000).toFixed(1)} s`);
  console.log(JSON.stringify({ values: posted.values, plan: posted.plan && Object.keys(posted.plan) }));
  await fetch(url + `/api/export/${posted.id}/`, { method: 'DELETE', headers: { authorization: `Token ${token}` } });
}
child.kill('SIGTERM');
fs.rmSync(tmp, { recursive: true, force: true });
