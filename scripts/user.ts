/**
 * `make user EMAIL=... PASSWORD=...`: creates the account if missing, or resets its password, and
 * prints the account's API token as the last line of standard output.
 * Options: --email, --password, --burst-rate N/min, --sustained-rate N/day, --clear-rates.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createAuth } from '../src/auth/index.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig } from '../src/config.js';

const RATE = /^\d+\/(sec|min|hour|day)$/;
const input = z.object({
  email: z.string({ error: 'EMAIL is required: make user EMAIL=you@example.com PASSWORD=...' }).trim().email({ error: 'EMAIL is not a valid email address' }),
  password: z.string({ error: 'PASSWORD is required: make user EMAIL=... PASSWORD=...' }).min(8, { error: 'PASSWORD must have at least 8 characters' }),
  burstRate: z.string().regex(RATE, { error: '--burst-rate must look like 20/min (N/sec, N/min, N/hour or N/day)' }).optional(),
  sustainedRate: z.string().regex(RATE, { error: '--sustained-rate must look like 5000/day (N/sec, N/min, N/hour or N/day)' }).optional(),
  clearRates: z.boolean().optional(),
});

async function main() {
  const { values } = parseArgs({
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'burst-rate': { type: 'string' },
      'sustained-rate': { type: 'string' },
      'clear-rates': { type: 'boolean' },
    },
  });
  const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const parsed = input.safeParse({
    email: nonEmpty(values.email) ?? nonEmpty(process.env.EMAIL),
    password: nonEmpty(values.password) ?? nonEmpty(process.env.PASSWORD),
    burstRate: values['burst-rate'],
    sustainedRate: values['sustained-rate'],
    clearRates: values['clear-rates'],
  });
  if (!parsed.success) {
    console.error(parsed.error.issues.map((i) => i.message).join('\n'));
    process.exit(1);
  }
  const args = parsed.data;
  const config = loadConfig();
  const auth = await createAuth(config);
  const hash = await hashPassword(args.password);
  let account = await auth.accounts.findByEmail(args.email);
  if (account) {
    await auth.accounts.setPassword(account.id, hash);
    console.log(`Reset the password of ${account.email} (account ${account.id}).`);
  } else {
    account = await auth.accounts.create(args.email, hash);
    console.log(`Created account ${account.id} for ${account.email}.`);
  }
  if (args.clearRates || args.burstRate || args.sustainedRate) {
    const burst = args.clearRates ? null : (args.burstRate ?? account.burstRate);
    const sustained = args.clearRates ? null : (args.sustainedRate ?? account.sustainedRate);
    await auth.accounts.setRates(account.id, burst, sustained);
    console.log(`Throttle rates: burst ${burst ?? 'default'}, sustained ${sustained ?? 'default'}.`);
  }
  const current = (await auth.accounts.getById(account.id))!;
  await auth.close();
  console.log(`Accounts file: ${config.ACCOUNTS_DB}. API token (send as "Authorization: Token <token>"):`);
  console.log(await auth.tokens.issue(current.id, current.tokenVersion));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
