import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealed } from '../src/export/durableFile.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-durable-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('sealed: a finished export file', () => {
  it('gives its size and SHA-256, and tells how much of it is hashed after each 8 MB, up to all of it', async () => {
    const file = path.join(dir, 'export.csv');
    const bytes = randomBytes(5 * 2 ** 23 + 12_345);
    fs.writeFileSync(file, bytes);
    const heard: number[] = [];
    const seal = await sealed(file, (fraction) => heard.push(fraction));
    expect(seal).toEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    // Six reads of at most 8 MB each: the fractions rise to 1, never back.
    expect(heard.length).toBe(6);
    for (let i = 1; i < heard.length; i++) expect(heard[i]!).toBeGreaterThan(heard[i - 1]!);
    expect(heard.at(-1)).toBe(1);
    expect(heard[0]).toBeCloseTo(2 ** 23 / bytes.length, 12);
  });

  it('seals an empty file without telling any progress', async () => {
    const file = path.join(dir, 'empty.csv');
    fs.writeFileSync(file, '');
    const heard: number[] = [];
    expect(await sealed(file, (f) => heard.push(f))).toEqual({ bytes: 0, sha256: createHash('sha256').digest('hex') });
    expect(heard).toEqual([]);
  });
});
