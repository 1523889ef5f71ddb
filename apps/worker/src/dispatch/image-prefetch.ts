// Prefetch of a run's task images: when this worker starts its first attempt of a run, the
// run's distinct `docker_image`s (up to PREFETCH_MAX_IMAGES) are supplied in the background, a
// few at a time, so its later attempts find them on the engine instead of queueing behind pulls
// one after another. The worker's one supplier single-flights: an attempt that needs an image
// being prefetched waits on that pull. A prefetched image's digest is pinned as the run's (first
// writer wins, like an attempt's pull); a failure is left to the attempt that needs the image
// (it gets the error and its class).
import type { Db } from '@osmosis/db';
import { type ImageSupplier, normalisedReference } from '@osmosis/sandbox';
import type { Logger } from 'pino';
import { runImagePins } from './run-image-pins.ts';

/** Distinct images of one run prefetched at most. */
export const PREFETCH_MAX_IMAGES = 16;
/** Pulls of one run's prefetch at once. */
const PREFETCH_PARALLEL = 2;
/** Runs remembered as prefetched (the oldest forgotten first). */
const REMEMBERED_RUNS = 1000;

export type ImagePrefetch = (runId: string) => void;

/**
 * The run's distinct docker_image references (the stored task's `config.environment.docker_image`),
 * except those of tasks that build their image instead (`image_source = "build"`): the task chose
 * not to have it pulled.
 */
async function runImages(db: Db, runId: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ image: string }[]>`
    SELECT DISTINCT t.config->'config'->'environment'->>'docker_image' AS image
    FROM tasks t
    WHERE t.id IN (SELECT DISTINCT task_id FROM attempts WHERE run_id = ${runId}::uuid)
      AND t.config->'config'->'environment'->>'docker_image' IS NOT NULL
      AND (t.config->'config'->'environment'->>'image_source') IS DISTINCT FROM 'build'
    LIMIT ${PREFETCH_MAX_IMAGES}`;
  return rows.map((r) => r.image);
}

export function createImagePrefetch(options: {
  db: Db;
  supplier: ImageSupplier;
  logger: Logger;
  /** aborted when the worker shuts down: pulls not started are skipped */
  signal: AbortSignal;
}): ImagePrefetch {
  const { db, supplier, logger, signal } = options;
  const seen = new Set<string>();
  const prefetch = async (runId: string) => {
    const pins = runImagePins(db, runId, null);
    const [images, pinned] = await Promise.all([runImages(db, runId), pins.load()]);
    const queue = [...images];
    const next = async (): Promise<void> => {
      for (let raw = queue.shift(); raw !== undefined && !signal.aborted; raw = queue.shift()) {
        const reference = normalisedReference(raw);
        if (!reference) continue;
        const pin = pinned.get(reference);
        try {
          const image = await supplier.supply(raw, pin ? { digest: pin } : {});
          if (image.digest && !pin) await pins.pin(image.reference, image.digest);
        } catch (error) {
          logger.info({ runId, image: raw, err: (error as Error).message }, 'image prefetch failed');
        }
      }
    };
    await Promise.all(Array.from({ length: PREFETCH_PARALLEL }, next));
  };
  return (runId) => {
    if (seen.has(runId)) return;
    seen.add(runId);
    if (seen.size > REMEMBERED_RUNS) seen.delete(seen.values().next().value!);
    prefetch(runId).catch((error: unknown) =>
      logger.warn({ runId, err: (error as Error).message }, 'image prefetch of the run failed'),
    );
  };
}
