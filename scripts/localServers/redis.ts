import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answers, freePort, until } from './ports.js';

export interface RedisServer {
  url: string;
  /** Stops the server (a fault, SIGKILL); start() brings it back on the same port, empty unless persisted. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/**
 * A real redis-server (Debian's package `redis-server`, which .ci/run installs) on a free loopback
 * port, its working folder a temporary one; nothing persisted unless `persist` (an append-only
 * file synced on every write, so that a SIGKILL loses nothing and start() brings the data back).
 */
export async function startRedis(opts: { persist?: boolean } = {}): Promise<RedisServer> {
  const bin = '/usr/bin/redis-server';
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: apt-get install -y --no-install-recommends redis-server (.ci/run installs it).`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-test-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const persistence = opts.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...persistence], { stdio: 'ignore' });
    await until(`redis-server on port ${port}`, () => answers(port));
  };
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    await until(`redis-server on port ${port} to stop`, async () => !(await answers(port)));
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
