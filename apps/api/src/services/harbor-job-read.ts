// Reading an extracted Harbor job directory (already through the safe extractor: no name out of
// the folder, no link leaving it, sizes capped): the job's result.json and config.json, and each
// trial folder's result.json and files. Trial folders are named as Harbor names them
// (`<task>__<id>`); a folder whose name is not a plain name, or whose result.json names another
// trial, is refused. A folder without result.json is an unfinished trial: listed, not read.
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  HarborJobConfig,
  HarborJobResult,
  HarborTrialResult,
  type RunImportMismatch,
} from '@osmosis/contracts';
import { importRefusal, readHarborJson } from './harbor-json.ts';

/** A trial folder's name: what Harbor writes (task name, `__`, a short id), nothing path-like. */
const TRIAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
/** Files kept per trial; Harbor's agents write logs, a trajectory and a few artifacts. */
export const MAX_TRIAL_FILES = 2000;

export interface TrialFile {
  /** relative to the trial folder, `/`-separated */
  path: string;
  abs: string;
  size: number;
}

export interface HarborTrial {
  folder: string;
  result: HarborTrialResult;
  files: TrialFile[];
}

export interface HarborJob {
  jobName: string | null;
  jobId: string | null;
  config: HarborJobConfig | null;
  trials: HarborTrial[];
  /** trial folders that were not read, and why */
  skipped: RunImportMismatch[];
}

/** The job folder: the extracted root, or its only folder when the archive holds the job's folder. */
async function jobRoot(root: string): Promise<{ dir: string; prefix: string }> {
  const entries = await readdir(root, { withFileTypes: true });
  const names = new Set(entries.map((e) => e.name));
  if (names.has('result.json') || names.has('config.json')) return { dir: root, prefix: '' };
  const dirs = entries.filter((e) => e.isDirectory());
  if (entries.length === 1 && dirs.length === 1) {
    const only = dirs[0]!.name;
    return { dir: path.join(root, only), prefix: `${only}/` };
  }
  return { dir: root, prefix: '' };
}

/** Every regular file under a trial folder (links and special files are left out). */
async function trialFiles(dir: string, label: string): Promise<TrialFile[]> {
  const out: TrialFile[] = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(rel ? path.join(dir, rel) : dir, { withFileTypes: true });
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await visit(childRel);
      else if (entry.isFile()) {
        if (out.length >= MAX_TRIAL_FILES)
          throw importRefusal(label, `holds more than ${MAX_TRIAL_FILES} files; leave out what is not a log`);
        const abs = path.join(dir, childRel);
        out.push({ path: childRel, abs, size: (await lstat(abs)).size });
      }
    }
  };
  await visit('');
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Reads the job folder extracted at `root`. */
export async function readHarborJob(root: string): Promise<HarborJob> {
  const { dir, prefix } = await jobRoot(root);
  const jobResult = await readHarborJson(
    path.join(dir, 'result.json'),
    `${prefix}result.json`,
    HarborJobResult,
  );
  const config = await readHarborJson(path.join(dir, 'config.json'), `${prefix}config.json`, HarborJobConfig);
  const trials: HarborTrial[] = [];
  const skipped: RunImportMismatch[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    if (entry.isSymbolicLink())
      throw importRefusal(`${prefix}${entry.name}`, 'is a link, not a trial folder');
    if (!entry.isDirectory()) continue;
    const label = `${prefix}${entry.name}`;
    if (!TRIAL_NAME.test(entry.name))
      throw importRefusal(
        label,
        'is not a trial folder name: use letters, digits, ".", "_" and "-" (Harbor names them <task>__<id>)',
      );
    const trialDir = path.join(dir, entry.name);
    const result = await readHarborJson(
      path.join(trialDir, 'result.json'),
      `${label}/result.json`,
      HarborTrialResult,
    );
    if (!result) {
      skipped.push({ trial: entry.name, task_name: null, reason: 'no result.json: an unfinished trial' });
      continue;
    }
    if (result.trial_name !== entry.name)
      throw importRefusal(
        `${label}/result.json`,
        `names trial ${JSON.stringify(result.trial_name)}, but its folder is ${JSON.stringify(entry.name)}`,
        'trial_name',
      );
    trials.push({ folder: entry.name, result, files: await trialFiles(trialDir, label) });
  }
  if (trials.length === 0)
    throw importRefusal(
      prefix || '.',
      'holds no trial folder with a result.json: give the job folder Harbor wrote (jobs/<job_name>)',
    );
  return {
    jobName: config?.job_name ?? (prefix ? prefix.slice(0, -1) : null),
    jobId: jobResult?.id ?? null,
    config,
    trials,
    skipped,
  };
}
