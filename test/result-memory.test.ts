import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * The export runner frees DuckDB's results by collecting its garbage after every 64 MB of rows
 * read (src/export/resultMemory.ts): DuckDB frees a result in its JavaScript object's finalizer.
 */
describe('resultRead', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('collects once per 64 MB of results read, where the process exposes gc', async () => {
    const gc = vi.fn();
    vi.stubGlobal('gc', gc);
    vi.resetModules();
    const { resultRead } = await import('../src/export/resultMemory.js');
    resultRead(40 << 20);
    expect(gc).not.toHaveBeenCalled();
    resultRead(30 << 20);
    expect(gc).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 64; i++) resultRead(1 << 20);
    expect(gc).toHaveBeenCalledTimes(2);
  });

  it('does nothing where gc is not exposed', async () => {
    vi.stubGlobal('gc', undefined);
    vi.resetModules();
    const { resultRead } = await import('../src/export/resultMemory.js');
    expect(() => resultRead(1 << 30)).not.toThrow();
  });
});
