import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answers, freePort, until } from './ports.js';

export interface PostgresServer {
  url: string;
  /** Stops the server (a fault); start() brings it back on the same port with its data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** Debian's PostgreSQL binaries (package `postgresql`, which .ci/run installs). */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  if (versions.length === 0) throw new Error(`No PostgreSQL under ${root}: apt-get install -y --no-install-recommends postgresql (.ci/run installs it).`);
  return path.join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

/**
 * A real PostgreSQL on a free loopback port, its cluster in a temporary folder (no fsync: test data).
 * initdb refuses to run as root, so under root the cluster belongs to Debian's `postgres` user.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postgres-test-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  // util-linux's runuser, in /usr/sbin (not always on a non-login PATH).
  const runuser = fs.existsSync('/usr/sbin/runuser') ? '/usr/sbin/runuser' : 'runuser';
  const run = (cmd: string, args: string[]) => (asRoot ? [runuser, ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  execFileSync(...run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']), { stdio: 'ignore' });
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const [cmd, args] = run(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
    child = spawn(cmd, args, { stdio: 'ignore' });
    // The port accepts connections while the server is still starting up (and refuses logins with
    // "the database system is starting up"); pg_isready answers 0 only once it takes them.
    await until(`PostgreSQL on port ${port}`, () => acceptsLogins(bin, port), 30_000);
  };
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    // Under runuser, signal the server itself: its pid is in the data folder.
    const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGINT'); // fast shutdown: open connections are closed
    await exited;
    await until(`PostgreSQL on port ${port} to stop`, async () => !(await answers(port)));
  };
  // A test process ending without close() (an assertion failing in a hook, an interrupt) must not
  // leave a server running or its folder behind: the postmaster outlives its parent.
  const leftover = () => {
    const pidFile = path.join(data, 'postmaster.pid');
    if (fs.existsSync(pidFile)) {
      try {
        process.kill(Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT');
      } catch {
        // Already gone.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', leftover);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
      process.off('exit', leftover);
    },
  };
}

/** Whether the server on the port accepts logins (pg_isready exits 0), not merely TCP connections. */
const acceptsLogins = (bin: string, port: number) =>
  new Promise<boolean>((resolve) => execFile(path.join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)], (err) => resolve(!err)));
