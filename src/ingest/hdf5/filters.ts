/**
 * The filters of an HDF5 filter pipeline this reader decodes itself, and the names of those it
 * meets in climate files but does not, so that an error can say which one a file needs.
 */
export const FILTER_DEFLATE = 1;
export const FILTER_SHUFFLE = 2;
export const FILTER_FLETCHER32 = 3;

export const DECODED_FILTERS = new Set([FILTER_DEFLATE, FILTER_SHUFFLE, FILTER_FLETCHER32]);

/** Registered filter ids (The HDF Group's filter registry) seen in NetCDF-4 files. */
const KNOWN: Record<number, string> = {
  1: 'deflate',
  2: 'shuffle',
  3: 'Fletcher-32',
  4: 'szip',
  5: 'N-bit',
  6: 'scale-offset',
  307: 'bzip2',
  32001: 'Blosc',
  32004: 'LZ4',
  32008: 'bitshuffle',
  32013: 'ZFP',
  32015: 'Zstandard',
  32017: 'SZ',
  32026: 'Blosc2',
};

/** "filter 32015 (Zstandard)": the id, and the name the file or the registry gives it. */
export function filterLabel(id: number, name?: string): string {
  const known = name || KNOWN[id];
  return known ? `filter ${id} (${known})` : `filter ${id}`;
}

/**
 * HDF5's Fletcher-32 checksum: 16-bit words, most significant byte first, a trailing odd byte as
 * the high byte of a last word; both sums folded to 16 bits often enough never to overflow 32.
 */
export function fletcher32(data: Uint8Array): number {
  let sum1 = 0;
  let sum2 = 0;
  const words = data.length >> 1;
  let k = 0;
  for (let done = 0; done < words; ) {
    // 360 words keep both sums below 2^32 between folds, as HDF5's 32-bit sums need.
    const end = Math.min(words, done + 360);
    for (; done < end; done++, k += 2) {
      sum1 += (data[k]! << 8) | data[k + 1]!;
      sum2 += sum1;
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  if (data.length & 1) {
    sum1 += data[k]! << 8;
    sum2 += sum1;
    sum1 = fold(sum1);
    sum2 = fold(sum2);
  }
  sum1 = fold(sum1);
  sum2 = fold(sum2);
  return ((sum2 << 16) | sum1) >>> 0;
}

/** The high 16 bits added to the low 16; by division, as the sum may exceed what >>> keeps. */
const fold = (sum: number) => (sum % 0x10000) + Math.floor(sum / 0x10000);
