/** Calls to this server's API with the session's token, and its errors as sentences for the page. */

/** An answer the page shows as a sentence instead of data. `signedOut`: the token is no longer valid. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly signedOut = false,
  ) {
    super(message);
  }
}

/** The API's own explanation ({"detail": ...} or DRF's field errors), or undefined. */
async function detailOf(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.json()) as Record<string, unknown>;
    if (typeof body.detail === 'string') return body.detail;
    const first = Object.values(body).flat().find((v) => typeof v === 'string');
    return typeof first === 'string' ? first : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds from a Retry-After header (seconds or an HTTP date). */
function retryAfterSeconds(res: Response): number | undefined {
  const value = res.headers.get('Retry-After');
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value) ? Number(value) : Math.ceil((Date.parse(value) - Date.now()) / 1000);
  return Number.isFinite(seconds) ? Math.max(seconds, 1) : undefined;
}

export async function errorFor(res: Response): Promise<ApiError> {
  const detail = await detailOf(res);
  if (res.status === 401) {
    return new ApiError('Your session has ended: the token expired, or it was refreshed or revoked elsewhere. Please sign in again.', 401, true);
  }
  if (res.status === 429) {
    const wait = retryAfterSeconds(res);
    const when = wait === undefined ? 'in a little while' : `in ${wait} second${wait === 1 ? '' : 's'}`;
    return new ApiError(`This account has made too many requests for now. Please try again ${when}.`, 429);
  }
  if (res.status === 404) return new ApiError(detail ?? 'There is no data for this choice.', 404);
  if (res.status >= 500) return new ApiError(`The server could not answer (${res.status}${detail ? `: ${detail}` : ''}). Please try again later.`, res.status);
  return new ApiError(detail ?? `The server refused the request (${res.status}).`, res.status);
}

/** A GET of this server's API with the token; the Response if 2xx, else an ApiError. */
export async function apiGet(pathAndQuery: string, token: string, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(pathAndQuery, { headers: { Authorization: `Token ${token}`, Accept: 'application/json' }, signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached. Check the connection and try again.', 0);
  }
  if (!res.ok) throw await errorFor(res);
  return res;
}

export async function apiJson<T>(pathAndQuery: string, token: string, signal?: AbortSignal): Promise<T> {
  return (await (await apiGet(pathAndQuery, token, signal)).json()) as T;
}

/** The token of an account (POST /api-token-auth/); wrong credentials give the API's sentence. */
export async function signIn(email: string, password: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch('/api-token-auth/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) });
  } catch {
    throw new ApiError('The server could not be reached. Check the connection and try again.', 0);
  }
  if (!res.ok) throw await errorFor(res);
  return ((await res.json()) as { token: string }).token;
}
