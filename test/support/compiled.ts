import path from 'node:path';
import { ROOT } from '../../src/config.js';

/**
 * A module of src/ as the tests start it in a process of its own (servers, workers, CLIs): its
 * compiled form in dist/, as production runs it (test/global-setup.ts compiles dist/ when an input
 * changed). Under tsx each such start translated the modules again, h5wasm's 4 MB of embedded
 * WebAssembly among them: 5-6 s a process on 2 cores against 0.8 s, the most of the time of the
 * files that start many.
 */
export const compiled = (source: string): string => path.join(ROOT, 'dist', source.replace(/^src\//, '').replace(/\.ts$/, '.js'));
