/**
 * `make migrate`: creates or upgrades the accounts schema in PostgreSQL (ACCOUNTS_URL). Every
 * server does it at start too (under an advisory lock); this is for deployments that prepare the
 * database before starting replicas, or check that ACCOUNTS_URL reaches it. Exit code 1 on failure.
 *
 *   node dist/cli/migrate.js      (compiled; under tsx: tsx src/cli/migrate.ts)
 */
import { openAccountStore } from '../auth/index.js';
import { loadConfig } from '../config.js';

try {
  const config = loadConfig();
  if (!config.ACCOUNTS_URL) {
    console.log(`ACCOUNTS_URL is not set: accounts are in the embedded file ${config.ACCOUNTS_DB}, which needs no migration.`);
    process.exit(0);
  }
  const store = await openAccountStore(config);
  await store.close();
  console.log('The accounts schema in PostgreSQL (ACCOUNTS_URL) is up to date.');
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
