import request from 'supertest';
import { it, expect } from 'vitest';
import { testApp } from './helpers.js';
/** Odd and hostile inputs across the endpoints: always a JSON 4xx or a 200, never a 500. */
it('never answers 500 to odd input', async () => {
  const t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
  const urls = ['/api/city/%ZZ/', '/api/city/?name=%ZZ', '/api/city/?page=99999999999999999999', '/api/city/?page_size=1e3', '/api/city/?in_bbox=1,2,3,', '/api/city/?ordering=', '/api/city/?ordering=,,',
    '/api/climate-data/abc/RCP85/', '/api/climate-data/1.5/2.5/RCP85/', '/api/climate-data/5128581/RCP85/?years=99999', '/api/climate-data/5128581/RCP85/?years=0000:9999', '/api/climate-data/5128581/RCP85/?models=,',
    '/api/climate-data/5128581/RCP85/?variables=,', '/api/climate-data/5128581/RCP85/?agg[]=x', '/api/climate-data/5128581/RCP85/indicator/frost_days/?agg=', '/api/climate-data/5128581/RCP85/indicator/frost_days/?custom_time_agg=&time_aggregation=custom',
    '/api/climate-data/5128581/RCP85/indicator/frost_days/?time_aggregation=custom&custom_time_agg=2-29:2-29', '/api/climate-data/5128581/RCP85/indicator/max_temperature_threshold/?threshold=1e400&threshold_comparator=gt&threshold_units=K',
    '/api/climate-data/5128581/RCP85/indicator/percentile_precipitation/?percentile=07', '/api/climate-data/5128581/RCP85/indicator/frost_days/?years=2052:2052&time_aggregation=offset_yearly',
    '/api/climate-data/5128581/RCP85/indicator/a/b/', '/api/map-cell/-0/-0/', '/api/map-cell/90/180/', '/api/map-cell/-90/-180/?distance=1e308', '/api/region/1.xyz', '/api/region/abc.pbf', '/api/region/%00/',
    '/api/climate-data/90/180/RCP85/indicator/frost_days/?distance=20000000', '/api/city/nearest/?lat=0&lon=0&limit=100000', '/api/city/?search=%00',
    '/api/climate-data/map/RCP85/indicator/frost_days/?years=0000:9999', '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050&agg[]=x', '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050&bbox=%00',
    '/api/climate-data/map/RCP85/indicator/frost_days/?warming_level=1e400', '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050&format[]=csv', '/api/climate-data/map/RCP85/indicator/frost_days/?years[]=2050',
    '/api/climate-data/map/RCP85/indicator/max_temperature_threshold/?years=2050&threshold=1e400&threshold_comparator=gt&threshold_units=K', '/api/climate-data/map/RCP85/indicator/frost_days/?warming_level=2.0&relative_to=1971',
    '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050&bbox=-180,-90,180,90', '/api/climate-data/map/RCP85/indicator/a/b/'];
  for (const u of urls) {
    const res = await request(t.app).get(u).set('Authorization', `Token ${t.token}`);
    expect(res.status, u).toBeLessThan(500);
    expect(res.headers['content-type'], u).toMatch(/application\/json/);
    if (res.status >= 400) expect(typeof res.body.detail, u).toBe('string');
  }
}, 120000);
