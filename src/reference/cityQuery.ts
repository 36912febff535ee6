import type { City } from './catalog.js';
import { distanceMeters } from './sphere.js';

export const ORDERING_FIELDS = ['name', 'admin', 'population', 'region'] as const;
export type OrderingField = (typeof ORDERING_FIELDS)[number];
export interface OrderKey {
  field: OrderingField;
  descending: boolean;
}

export interface CityFilters {
  name?: string;
  admin?: string;
  search?: string;
  populationGte?: number;
  populationLte?: number;
  region?: number;
  bbox?: [number, number, number, number];
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareField(field: OrderingField, a: City, b: City): number {
  switch (field) {
    case 'name':
      return compareText(a.name.toLowerCase(), b.name.toLowerCase()) || compareText(a.name, b.name);
    case 'admin':
      return compareText(a.admin, b.admin);
    case 'population':
      return a.population - b.population;
    case 'region':
      // Cities outside every region sort last ascending, like NULLS LAST.
      return (a.regionId ?? Number.MAX_SAFE_INTEGER) - (b.regionId ?? Number.MAX_SAFE_INTEGER);
  }
}

/**
 * Sorted orders of the city list, one per distinct ordering, computed on first use. There are few
 * distinct orderings in practice (four fields, two directions), so a request walks a presorted
 * array instead of sorting thousands of cities.
 */
export class CityIndex {
  private readonly orders = new Map<string, City[]>();
  private readonly lowerName: Map<City, string>;
  private readonly lowerAdmin: Map<City, string>;
  private readonly unit: Float64Array;

  constructor(readonly cities: City[]) {
    this.lowerName = new Map(cities.map((c) => [c, c.name.toLowerCase()]));
    this.lowerAdmin = new Map(cities.map((c) => [c, c.admin.toLowerCase()]));
    this.unit = new Float64Array(cities.length * 3);
    cities.forEach((c, i) => this.unit.set(unitVector(c.lat, c.lon), i * 3));
  }

  ordered(keys: OrderKey[]): City[] {
    const id = keys.map((k) => (k.descending ? '-' : '') + k.field).join(',');
    let order = this.orders.get(id);
    if (!order) {
      order = [...this.cities].sort((a, b) => {
        for (const k of keys) {
          const c = compareField(k.field, a, b);
          if (c !== 0) return k.descending ? -c : c;
        }
        return a.id - b.id;
      });
      if (this.orders.size < 500) this.orders.set(id, order);
    }
    return order;
  }

  filter(keys: OrderKey[], f: CityFilters): City[] {
    const ordered = this.ordered(keys);
    if (Object.values(f).every((v) => v === undefined)) return ordered;
    const name = f.name?.toLowerCase();
    const admin = f.admin?.toLowerCase();
    const search = f.search?.toLowerCase();
    const out: City[] = [];
    for (const c of ordered) {
      if (name !== undefined && !this.lowerName.get(c)!.includes(name)) continue;
      if (admin !== undefined && !this.lowerAdmin.get(c)!.includes(admin)) continue;
      if (search !== undefined && !this.lowerName.get(c)!.includes(search) && !this.lowerAdmin.get(c)!.includes(search)) continue;
      if (f.populationGte !== undefined && !(c.population >= f.populationGte)) continue;
      if (f.populationLte !== undefined && !(c.population <= f.populationLte)) continue;
      if (f.region !== undefined && c.regionId !== f.region) continue;
      if (f.bbox && !inBbox(f.bbox, c.lon, c.lat)) continue;
      out.push(c);
    }
    return out;
  }

  /** The `limit` cities nearest to the point, by great-circle distance. */
  nearest(lat: number, lon: number, limit: number): City[] {
    const [x, y, z] = unitVector(lat, lon);
    const n = this.cities.length;
    const k = Math.min(limit, n);
    // Keep the k best (largest dot product = smallest angle) in a small sorted buffer.
    const best: { i: number; dot: number }[] = [];
    const u = this.unit;
    for (let i = 0; i < n; i++) {
      const dot = u[i * 3]! * x + u[i * 3 + 1]! * y + u[i * 3 + 2]! * z;
      let j: number;
      if (best.length < k) {
        best.push({ i, dot });
        j = best.length - 1;
      } else if (dot > best[k - 1]!.dot) {
        j = k - 1;
      } else continue;
      while (j > 0 && best[j - 1]!.dot < dot) {
        best[j] = best[j - 1]!;
        j--;
      }
      best[j] = { i, dot };
    }
    return best.map((b) => this.cities[b.i]!);
  }
}

/** Points on the edges count as inside, like PostGIS's bounding-box overlap. */
export function inBbox([minLon, minLat, maxLon, maxLat]: [number, number, number, number], lon: number, lat: number) {
  return lon >= minLon && lon <= maxLon && lat >= minLat && lat <= maxLat;
}

function unitVector(lat: number, lon: number): [number, number, number] {
  const φ = (lat * Math.PI) / 180;
  const λ = (lon * Math.PI) / 180;
  return [Math.cos(φ) * Math.cos(λ), Math.cos(φ) * Math.sin(λ), Math.sin(φ)];
}

export { distanceMeters };
