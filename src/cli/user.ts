/**
 * `make user EMAIL=... PASSWORD=...`: creates the account if missing, or resets its password, and
 * prints the account's current API token as the last line of standard output.
 *
 *   node dist/cli/user.js --email you@example.com --password 'at-least-8' \
 *     [--burst-rate 100/min] [--sustained-rate 10000/day] [--clear-rates]
 *
 * (compiled, with the production dependencies only; under tsx: tsx src/cli/user.ts ...)
 *
 * EMAIL and PASSWORD may come from the environment instead. Works while the server runs: the
 * accounts file is opened per operation by both. Exit code 1 on bad input or failure.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createAuth } from '../auth/index.js';
import { hashPassword } from '../auth/passwords.js';
import { accountCommandEnv, loadConfig } from '../config.js';

const USAGE = `Usage: make user EMAIL=you@example.com PASSWORD='at least 8 characters'
   or: node dist/cli/user.js --email you@example.com --password '...' [--burst-rate 100/min] [--sustained-rate 10000/day] [--clear-rates]`;

const RATE = /^\d+\/(sec|min|hour|day)$/;
const rate = (flag: string, example: string) =>
  z.string().regex(RATE, { error: `${flag} must look like ${example} (N/sec, N/min, N/hour or N/day)` }).optional();

const input = z.object({
  email: z
    .string({ error: 'EMAIL is required (--email or the EMAIL environment variable)' })
    .trim()
    .toLowerCase()
    .pipe(z.email({ error: 'EMAIL is not a valid email address' })),
  password: z
    .string({ error: 'PASSWORD is required (--password or the PASSWORD environment variable)' })
    .min(8, { error: 'PASSWORD must have at least 8 characters' }),
  burstRate: rate('--burst-rate', '100/min'),
  sustainedRate: rate('--sustained-rate', '10000/day'),
  clearRates: z.boolean().optional(),
});

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        'burst-rate': { type: 'string' },
        'sustained-rate': { type: 'string' },
        'clear-rates': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
  if (values.help) {
    console.error(USAGE);
    process.exit(0);
  }
  const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const fromEnv = accountCommandEnv();
  const parsed = input.safeParse({
    email: nonEmpty(values.email) ?? fromEnv.email,
    password: nonEmpty(values.password) ?? fromEnv.password,
    burstRate: values['burst-rate'],
    sustainedRate: values['sustained-rate'],
    clearRates: values['clear-rates'],
  });
  if (!parsed.success) fail(`${parsed.error.issues.map((i) => i.message).join('\n')}\n${USAGE}`);
  const args = parsed.data;

  let config;
  try {
    config = loadConfig();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const hash = await hashPassword(args.password);
  const auth = await createAuth(config);
  try {
    let account = await auth.accounts.findByEmail(args.email);
    if (account) {
      await auth.accounts.setPassword(account.id, hash);
      console.log(`Reset the password of ${account.email} (account ${account.id}).`);
    } else {
      account = await auth.accounts.create(args.email, hash);
      console.log(`Created account ${account.id} for ${account.email}.`);
    }
    if (!account.isActive) console.log('Note: this account is inactive; its token is refused until it is activated again.');

    if (args.clearRates || args.burstRate || args.sustainedRate) {
      // --clear-rates returns both to the service defaults; a rate given with it is then set.
      const burst = args.burstRate ?? (args.clearRates ? null : account.burstRate);
      const sustained = args.sustainedRate ?? (args.clearRates ? null : account.sustainedRate);
      await auth.accounts.setRates(account.id, burst, sustained);
    }
    const current = await auth.accounts.getById(account.id);
    if (!current) throw new Error(`Account ${account.id} disappeared while being updated.`);
    console.log(
      `Throttle rates: burst ${current.burstRate ?? `${config.THROTTLE_BURST_RATE} (default)`}, ` +
        `sustained ${current.sustainedRate ?? `${config.THROTTLE_SUSTAINED_RATE} (default)`}.`,
    );
    console.log(`Accounts file: ${config.ACCOUNTS_DB}`);
    console.log(
      config.TOKEN_SECRET
        ? 'Token signed with TOKEN_SECRET: the server must run with the same TOKEN_SECRET.'
        : 'Token signed with the secret kept in the accounts file (the server must not set TOKEN_SECRET).',
    );
    console.log('API token (send as "Authorization: Token <token>"):');
    const token = await auth.tokens.issue(current.id, current.tokenVersion);
    await auth.close();
    console.log(token);
  } catch (err) {
    await auth.close().catch(() => undefined);
    throw err;
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
