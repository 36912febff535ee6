import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import { afterAll } from 'vitest';
const s = new Session();
s.connect();
await s.post('Profiler.enable');
await s.post('Profiler.setSamplingInterval', { interval: 500 });
await s.post('Profiler.start');
afterAll(async () => {
  const { profile } = await s.post('Profiler.stop');
  fs.writeFileSync(process.env.PROF_OUT!, JSON.stringify(profile));
});
await import(process.env.PROF_TARGET!);
