import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { openParts, StagedFile } from '../netcdf/stagedFile.js';
import { rangeCount } from '../netcdf/cellRanges.js';
import { IngestError } from '../netcdf/ingestError.js';
import { fetchPlanSchema } from './fetchPlan.js';

/**
 * The folder an ingest job shares between its workers (beside DATA_DIR, so every machine that sees
 * DATA_DIR sees it): the plan the enqueue made (plan.json, cells.bin: the target cells as int32),
 * the map tasks' staged parts (staged/<range>/<n>.stage: file n's values of the range's cells, each
 * written under a temporary name and renamed, so a part in place is whole; a reduce task reads its
 * range's folder and nothing else), and the publish step's result.
 */
export const jobPlanSchema = z.object({
  job: z.string(),
  dataset: z.string(),
  /** DATA_DIR as given (a symlink), the build it named at enqueue, and the new build's folder. */
  dataDir: z.string(),
  base: z.string(),
  next: z.string(),
  files: z.array(z.object({ path: z.string(), size: z.number(), mtime: z.number() })),
  models: z.array(z.string()),
  cellsKey: z.string(),
  /** Target cells per range of the shuffle (cellRanges.ts): one reduce task per range. */
  rangeCells: z.number().int().positive(),
  cityCells: z.number().int(),
  pointCells: z.number().int(),
  boxCells: z.number().int(),
  bbox: z.array(z.number()).length(4).optional(),
  enqueued: z.string(),
  /** make fetch with QUEUE_URL: the map tasks download their file first (fetchTask.ts). */
  fetch: fetchPlanSchema.optional(),
});
export type JobPlan = z.infer<typeof jobPlanSchema> & { cells: Int32Array };

export class JobFolder {
  constructor(readonly dir: string) {}

  /** The folder of a job: DATA_DIR's parent/ingest-jobs/<job>. */
  static of(dataDir: string, job: string): JobFolder {
    return new JobFolder(path.join(path.dirname(path.resolve(dataDir)), 'ingest-jobs', job));
  }

  write(plan: JobPlan) {
    fs.mkdirSync(path.join(this.dir, 'staged'), { recursive: true });
    const { cells, ...rest } = plan;
    fs.writeFileSync(path.join(this.dir, 'cells.bin'), new Uint8Array(cells.buffer, cells.byteOffset, cells.byteLength));
    fs.writeFileSync(path.join(this.dir, 'plan.json'), JSON.stringify(jobPlanSchema.parse(rest), null, 2) + '\n');
  }

  read(): JobPlan {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.dir, 'plan.json'), 'utf8');
    } catch {
      throw new IngestError(`${this.dir} holds no plan.json: was the job's folder removed, or is it on a disk this worker does not see?`);
    }
    const plan = jobPlanSchema.parse(JSON.parse(text));
    const bytes = fs.readFileSync(path.join(this.dir, 'cells.bin'));
    const cells = new Int32Array(bytes.byteLength / 4);
    new Uint8Array(cells.buffer).set(bytes);
    return { ...plan, cells };
  }

  /** Where file n's part of each range is staged. */
  partPath(n: number): (range: number) => string {
    return (range) => path.join(this.dir, 'staged', String(range), `${n}.stage`);
  }

  /** Every part of file n, or undefined unless its map task is done. */
  stagedParts(plan: JobPlan, n: number): StagedFile[] | undefined {
    const part = this.partPath(n);
    return openParts(Array.from({ length: rangeCount(plan.cells.length, plan.rangeCells) }, (_, r) => part(r)));
  }

  /** Every file's part of range r, in the plan's file order; an error naming the first one missing. */
  openRange(plan: JobPlan, r: number): StagedFile[] {
    return plan.files.map((f, n) => {
      const file = this.partPath(n)(r);
      const staged = StagedFile.open(file);
      if (!staged) throw new IngestError(`${f.path}: its staged values (${file}) are gone or damaged, though its map task is done`);
      return staged;
    });
  }

  /** Where the publish step notes what it published: a publish run again after a kill reads it. */
  get resultFile(): string {
    return path.join(this.dir, 'published.json');
  }

  /** The staged values, once their content is in the published build. */
  removeStaged() {
    fs.rmSync(path.join(this.dir, 'staged'), { recursive: true, force: true });
  }
}
