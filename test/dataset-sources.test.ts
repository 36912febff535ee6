import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './helpers.js';

/**
 * Each dataset's source and licence on /api/dataset/, list and detail, checked against the facts of
 * ../shared/reference/archive-access.md, cmip6.md and the publishers' pages named in docs/api.md
 * (written out here, not read from src/reference/datasetSources.ts, so that a slip in either shows).
 */

let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

interface Body {
  name: string;
  source: { publisher: string; archives: { url: string; description: string }[]; citations: { text: string; doi: string | null }[] } | null;
  licence: { name: string | null; url: string | null; statement: string; stated_at: string } | null;
}

/** Per dataset: the archive `make fetch` reads by default (issue 36), the DOIs to cite, the licence's name. */
const EXPECTED: Record<string, { archive: string; dois: string[]; licence: string | null; statedAt: string }> = {
  'NEX-GDDP': { archive: 'https://nasanex.s3.amazonaws.com/NEX-GDDP/', dois: ['10.5194/hess-16-3309-2012'], licence: 'US Government work', statedAt: 'https://registry.opendata.aws/nasanex/' },
  LOCA: { archive: 'https://nasanex.s3.amazonaws.com/LOCA/', dois: ['10.1175/JHM-D-14-0082.1'], licence: 'US Government work', statedAt: 'https://registry.opendata.aws/nasanex/' },
  'NEX-GDDP-CMIP6': {
    archive: 'https://nex-gddp-cmip6.s3.us-west-2.amazonaws.com/NEX-GDDP-CMIP6/',
    dois: ['10.7917/OFSG3345', '10.1038/s41597-022-01393-4'],
    licence: 'CC0 1.0',
    statedAt: 'https://registry.opendata.aws/nex-gddp-cmip6/',
  },
  LOCA2: { archive: 'https://cirrus.ucsd.edu/~pierce/LOCA2/', dois: ['10.1175/JHM-D-22-0194.1', '10.1175/JHM-D-14-0082.1'], licence: null, statedAt: 'https://loca.ucsd.edu/loca-bibliography' },
};

describe("each dataset's source and licence", () => {
  it('are on the list for every dataset, after the fields an old client reads', async () => {
    const list = (await get('/api/dataset/').expect(200)).body as Body[];
    expect(list.map((d) => d.name)).toEqual(Object.keys(EXPECTED));
    for (const d of list) {
      const want = EXPECTED[d.name]!;
      expect(Object.keys(d).slice(-2), d.name).toEqual(['source', 'licence']);
      expect(d.source!.publisher, d.name).not.toBe('');
      expect(d.source!.archives[0]!.url, d.name).toBe(want.archive);
      for (const a of d.source!.archives) {
        expect(a.url, d.name).toMatch(/^(https|ftp):\/\/[^\s]+\/$/);
        expect(a.description, d.name).not.toBe('');
      }
      expect(d.source!.citations.map((c) => c.doi).filter((doi) => doi !== null), d.name).toEqual(want.dois);
      for (const c of d.source!.citations) {
        expect(c.text, d.name).toMatch(/\d{4}|dataset/);
        if (c.doi !== null) expect(c.doi, d.name).toMatch(/^10\.\d{4,9}\/\S+$/);
      }
      expect(d.licence!.name, d.name).toBe(want.licence);
      expect(d.licence!.stated_at, d.name).toBe(want.statedAt);
      expect(d.licence!.statement.length, d.name).toBeGreaterThan(40);
    }
  });

  it('are the same on each dataset detail as on the list', async () => {
    const list = (await get('/api/dataset/').expect(200)).body as Body[];
    for (const d of list) {
      const detail = (await get(`/api/dataset/${d.name}/`).expect(200)).body as Body;
      expect({ source: detail.source, licence: detail.licence }, d.name).toEqual({ source: d.source, licence: d.licence });
    }
  });

  it('say NEX-GDDP-CMIP6 is CC0 since September 2022, CC BY-SA 4.0 before', async () => {
    const { licence } = (await get('/api/dataset/NEX-GDDP-CMIP6/').expect(200)).body as Body;
    expect(licence!.url).toBe('https://creativecommons.org/publicdomain/zero/1.0/');
    expect(licence!.statement).toMatch(/As of September 2022, all NEX-GDDP-CMIP6 outputs are made available under a blanket Creative Commons Zero \(CC0\) license/);
    expect(licence!.statement).toMatch(/CC BY-SA 4\.0/);
    expect(licence!.statement).toMatch(/citation guidance/);
  });

  it('name no licence where the publisher states none, and say so', async () => {
    const { licence } = (await get('/api/dataset/LOCA2/').expect(200)).body as Body;
    expect(licence).toMatchObject({ name: null, url: null });
    expect(licence!.statement).toMatch(/^No licence or terms of use were found/);
    const loca = (await get('/api/dataset/LOCA/').expect(200)).body as Body;
    expect(loca.licence!.statement).toMatch(/No licence was found on the producer's pages \(loca\.ucsd\.edu\)/);
  });

  it('follow ?name= like the rest of the entry', async () => {
    const only = (await get('/api/dataset/?name=LOCA2').expect(200)).body as Body[];
    expect(only.map((d) => [d.name, d.source!.archives[0]!.url])).toEqual([['LOCA2', EXPECTED.LOCA2!.archive]]);
  });
});

describe('the OpenAPI document', () => {
  it('describes source and licence as named, nullable members of ClimateDataset', async () => {
    const doc = (await request(t.app).get('/openapi.json').expect(200)).body;
    const schemas = doc.components.schemas;
    const props = schemas.ClimateDataset.properties;
    expect(schemas.ClimateDataset.required).toEqual(expect.arrayContaining(['source', 'licence']));
    const refOf = (p: { anyOf?: { $ref?: string; type?: string }[] }) => p.anyOf?.map((x) => x.$ref ?? x.type);
    expect(refOf(props.source)).toEqual(['#/components/schemas/DatasetSource', 'null']);
    expect(refOf(props.licence)).toEqual(['#/components/schemas/DatasetLicence', 'null']);
    expect(Object.keys(schemas.DatasetSource.properties)).toEqual(['publisher', 'archives', 'citations']);
    expect(Object.keys(schemas.DatasetLicence.properties)).toEqual(['name', 'url', 'statement', 'stated_at']);
    expect(schemas.DatasetLicence.required).toEqual(['name', 'url', 'statement', 'stated_at']);
    for (const p of ['source', 'licence']) expect(props[p].description, p).toMatch(/publisher/);
  });
});
