/** west, south, east, north (degrees, longitudes in -180..180). */
export type Box = [number, number, number, number];

/**
 * The regions of LOCA2's CONUS_regions_split/ folders: NCEI's nine climate regions of the
 * conterminous US, each as the rectangle around its states (rounded out to 0.1 degree). The folder
 * names `cent`, `e_n_cent`, `n_east`, `n_west`, `s_east` and `west` are seen in the publisher's
 * paths; `w_n_cent`, `south` and `s_west` follow their pattern unconfirmed (only a region whose
 * folder the publisher's page lists is ever chosen). How far each split file reaches beyond its
 * states is not known (../shared/reference/cmip6.md section 2.2), so a box is given to a region only
 * when it lies inside that region's rectangle and inside no other's.
 */
export const SPLIT_REGIONS: Record<string, { states: string; box: Box }> = {
  n_east: { states: 'CT DE ME MD MA NH NJ NY PA RI VT', box: [-80.6, 37.9, -66.9, 47.5] },
  e_n_cent: { states: 'IA MI MN WI', box: [-97.3, 40.3, -82.4, 49.4] },
  cent: { states: 'IL IN KY MO OH TN WV', box: [-95.8, 34.9, -77.7, 42.6] },
  s_east: { states: 'AL FL GA NC SC VA', box: [-88.5, 24.4, -75.2, 39.5] },
  w_n_cent: { states: 'MT NE ND SD WY', box: [-116.1, 40.0, -95.3, 49.0] },
  south: { states: 'AR KS LA MS OK TX', box: [-106.7, 25.8, -88.0, 40.0] },
  s_west: { states: 'AZ CO NM UT', box: [-114.9, 31.3, -102.0, 42.0] },
  n_west: { states: 'ID OR WA', box: [-124.9, 41.9, -111.0, 49.0] },
  west: { states: 'CA NV', box: [-124.5, 32.5, -114.0, 42.1] },
};

const inside = (a: Box, b: Box) => a[0] >= b[0] && a[1] >= b[1] && a[2] <= b[2] && a[3] <= b[3];

/**
 * The split region whose folder (among `listed`) covers `box`, or why none does: then the whole
 * domain (NAmer) is fetched.
 */
export function splitRegionFor(box: Box, listed: string[]): { region: string } | { reason: string } {
  const covering = Object.entries(SPLIT_REGIONS).filter(([, r]) => inside(box, r.box));
  if (covering.length === 0) return { reason: 'no split region covers the box' };
  if (covering.length > 1) return { reason: `the box lies where regions ${covering.map(([n]) => n).join(' and ')} meet` };
  const [name] = covering[0]!;
  return listed.includes(name) ? { region: name } : { reason: `the publisher lists no ${name} folder for it` };
}
