import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { CoverThread } from '../src/areas/coverThread.js';
import { catalogPolygons } from '../src/areas/geometry.js';
import { BadRequestError } from '../src/errors.js';
import { httpErrorOf } from '../src/http/errors.js';
import { GRIDS } from '../src/reference/grids.js';
import { testApp, type TestApp } from './helpers.js';

/**
 * Clipping an area runs on a thread of its own (src/areas/coverThread.ts): the largest ecoregion
 * takes seconds the first time it is asked for, and the server must go on answering meanwhile.
 */
let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

/** The ecoregion with the longest outline: the slowest to clip. */
const largestRegion = () => [...t.catalog.regions].sort((a, b) => b.geometry.length - a.geometry.length)[0]!;

describe('clipping areas', () => {
  it('answers other requests while a large region is being clipped', async () => {
    const finished: string[] = [];
    const area = get(`/api/climate-data/area/RCP85/indicator/frost_days/?region=${largestRegion().id}&years=2050`).then((res) => {
      finished.push('area');
      return res;
    });
    // Requests made after the area's, while its outline is being clipped, are not held up by it.
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 3; i++) {
      await get('/api/scenario/').expect(200);
      finished.push(`scenario ${i}`);
    }
    const res = await area;
    expect([200, 404]).toContain(res.status);
    expect(finished).toEqual(['scenario 0', 'scenario 1', 'scenario 2', 'area']);
  }, 60_000);

  it('gives up an area that takes longer than its limit with a 400, and clips the next one on a new thread', async () => {
    const thread = new CoverThread(100);
    const nex = GRIDS['NEX-GDDP']!;
    const wanted = t.catalog.mapCells.ids('NEX-GDDP');
    try {
      const err = await thread.cover(nex, catalogPolygons(largestRegion().geometry), wanted).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect(httpErrorOf(err)?.status).toBe(400);
      expect((err as Error).message).toMatch(/^The area took more than 0.1 s to clip to the map cells; send a simpler outline/);
      const small = await thread.cover(nex, [[[[-74, 40.7], [-73.9, 40.7], [-73.9, 40.8], [-74, 40.8], [-74, 40.7]]]], wanted);
      expect(small.count).toBeGreaterThan(0);
    } finally {
      thread.close();
    }
  }, 60_000);
});
