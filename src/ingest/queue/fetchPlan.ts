import { z } from 'zod';

/**
 * What a queued fetch's map tasks need to fetch their own file (make fetch with QUEUE_URL): the
 * publisher's settings and its listing of the job's files, in the plan's file order (file n of the
 * plan is the listing's file n, its key's path the file's URL).
 */
export const archiveFileSchema = z.object({
  url: z.string(),
  path: z.string(),
  bytes: z.number().optional(),
  estimatedBytes: z.number().optional(),
  md5: z.string().optional(),
  version: z.string(),
  model: z.string(),
  scenario: z.string(),
  member: z.string(),
  variable: z.string(),
  years: z.tuple([z.number(), z.number()]),
});

export const fetchPlanSchema = z.object({
  via: z.enum(['s3', 'ncss']),
  archiveUrl: z.string(),
  ncssUrl: z.string().optional(),
  /** What the build's fetch record names as the files' source. */
  archive: z.string(),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
  points: z.array(z.object({ lat: z.number(), lon: z.number() })).optional(),
  /** Shared by the workers; each downloads below a folder of its own there (fetchTask.ts). */
  downloadDir: z.string(),
  keepDownloads: z.boolean(),
  concurrency: z.number().int().positive(),
  files: z.array(archiveFileSchema),
});
export type FetchPlan = z.infer<typeof fetchPlanSchema>;
