/** Distances on the mean-radius sphere, shared by the city and the map-cell lookups. */

export const EARTH_RADIUS_M = 6_371_008.8;

/** Great-circle distance in metres (haversine on the mean-radius sphere). */
export function distanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const dφ = (lat2 - lat1) * r;
  const dλ = (lon2 - lon1) * r;
  const a = Math.sin(dφ / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(dλ / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}
