/**
 * What a request that passed the app's authentication finds in `res.locals.account`: the request
 * log names it and the per-account throttle keys and rates by it (src/auth/requireToken.ts sets it).
 */
export interface AuthenticatedAccount {
  id: number;
  email: string;
  burstRate: string | null;
  sustainedRate: string | null;
}
