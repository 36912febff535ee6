/**
 * The API token of the signed-in account, kept in sessionStorage: it lasts while the tab is open,
 * survives a reload, and never appears in the URL (which is shared with the view).
 */
const KEY = 'climate-explorer-token';

export const session = {
  token(): string | null {
    return sessionStorage.getItem(KEY);
  },
  set(token: string): void {
    sessionStorage.setItem(KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};
