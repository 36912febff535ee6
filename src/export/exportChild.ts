/**
 * The process an export runs in: a child of the server (LocalExports) or of `make export-worker`
 * (exportQueue.ts), started by ExportChildProcess with a heap of its own (EXPORT_RUNNER_HEAP_MB),
 * so that nothing an export does, running out of memory included, stops its parent. It runs the
 * exports its parent sends, one at a time, and ends when its parent goes.
 */
import { openExportEngine } from './exportEngine.js';
import { runExport } from './exportRunner.js';
import { ExportStore } from './exportStore.js';
import type { ChildOptions, ChildReply, ChildRequest } from './exportProcess.js';
import { loadCatalog, type Catalog } from '../reference/catalog.js';

const options = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;
const store = new ExportStore(options.exportDir);
const engine = await openExportEngine(options.memoryLimit, options.threads);
// The build being served when an export starts: read again when the server serves another.
let catalog: { dataDir: string; catalog: Catalog } | undefined;

async function catalogOf(dataDir: string): Promise<Catalog> {
  if (catalog?.dataDir !== dataDir) {
    const conn = await engine.db.connect();
    try {
      catalog = { dataDir, catalog: await loadCatalog(conn, dataDir) };
    } finally {
      conn.closeSync();
    }
  }
  return catalog.catalog;
}

const reply = (message: ChildReply) => process.send!(message);
// The parent's pid, as the kernel tells it at each look: when the parent dies the child is
// re-parented at once, while 'disconnect' below waits for this process's event loop.
const parent = process.ppid;
const orphaned = () => process.ppid !== parent;

let work = Promise.resolve();
process.on('message', (message: ChildRequest) => {
  work = work.then(async () => {
    try {
      const outcome = await runExport({ catalog: await catalogOf(message.dataDir), queries: engine.queries, store, maxBytes: options.maxBytes, orphaned }, message.id);
      reply({ id: message.id, outcome });
    } catch (err) {
      // runExport records its own failures; what reaches here failed before it could (the build
      // unreadable, EXPORT_DIR gone): the job says so, rather than staying `running`.
      const error = err instanceof Error ? err.message : String(err);
      if (orphaned()) return;
      try {
        store.update(message.id, () => ({ status: 'failed', files: [], error: `The export could not run: ${error}` }));
        store.clearFiles(message.id);
      } finally {
        reply({ id: message.id, outcome: 'failed', error });
      }
    }
  });
});
// The parent is gone (ended, or killed): an export under way is its next runner's to redo.
process.on('disconnect', () => process.exit(0));
reply({ ready: true });
