import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt password hashes, stored as `scrypt$N$r$p$salt$hash` (salt and hash in base64), so the
 * cost can be raised later: old hashes keep verifying with their own parameters, and
 * `needsRehash` tells the login path to store a new hash.
 *
 * N=2^16, r=8, p=2: 64 MiB per hash and ~0.4 s on the development machine, the same work as
 * OWASP's minimum (N=2^17, r=8, p=1) with half the memory.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

export const SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 16, r: 8, p: 2 });
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/**
 * Hashes run on libuv's thread pool, which DuckDB's queries share (4 threads by default): one at a
 * time, so a burst of logins waits for itself instead of stalling the climate queries.
 */
const MAX_CONCURRENT_HASHES = 1;
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function derive(password: string, salt: Buffer, { N, r, p }: ScryptParams): Promise<Buffer> {
  const maxmem = 128 * N * r + 16 * 1024 * 1024;
  return limited(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}

export async function hashPassword(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash extends ScryptParams {
  salt: Buffer;
  hash: Buffer;
}

function parse(stored: string): ParsedHash | undefined {
  const [scheme, n, r, p, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || rest.length > 0) return undefined;
  const N = Number(n);
  const R = Number(r);
  const P = Number(p);
  // Sane bounds, so a damaged row cannot make a login allocate gigabytes.
  const ok =
    Number.isInteger(N) && N >= 2 && N <= 2 ** 20 && (N & (N - 1)) === 0 &&
    Number.isInteger(R) && R >= 1 && R <= 32 &&
    Number.isInteger(P) && P >= 1 && P <= 16;
  return ok ? { N, r: R, p: P, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') } : undefined;
}

/** Whether `password` matches the stored hash; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || parsed.hash.length === 0) return false;
  const key = await derive(password, parsed.salt, parsed);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** True when the stored hash was made with other parameters than today's (or is unreadable). */
export function needsRehash(stored: string, params: ScryptParams = SCRYPT_PARAMS): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.N !== params.N || parsed.r !== params.r || parsed.p !== params.p;
}

let dummy: Promise<string> | undefined;

/** Spend the same time as a real check, so unknown emails cannot be told apart by timing. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
}
