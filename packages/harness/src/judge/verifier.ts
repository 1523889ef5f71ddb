// Judge verifiers: for benchmarks graded by an LLM judge (HLE, GDPVal) the worker grades the
// agent's answer itself after the agent phase — the sandbox has no network, so the judge is
// called from the worker with the judge key, never from inside the sandbox.
//
// Layout (Harbor's HLE adapter): the agent writes /logs/agent/response.txt; the task's tests/
// folder holds question.txt and answer.txt (GDPVal-style tasks: rubric.json). The verdict is
// written to /logs/verifier/judgment.json and the reward to /logs/verifier/reward.json, where
// the pipeline reads rewards from.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { type HarnessEvent, type HarnessSandbox, type HarnessUsage, SANDBOX_PATHS } from '../harness.ts';
import type { ModelClient } from '../models/client.ts';
import type { ChatAttachment } from '../models/types.ts';
import { type HleJudgeTemplate, hleJudgeTemplateFromEnv } from './hle-template.ts';
import {
  type HleJudgement,
  type JudgeAccounting,
  judgeHle,
  judgeRubric,
  type RubricJudgement,
} from './judge.ts';
import { recoverHleResponse } from './recover.ts';
import { RubricItem, rubricJudgeTemplate } from './rubric-prompt.ts';
import { type JudgeTemplate, judgeTemplateId } from './template-id.ts';

export const RESPONSE_PATH = `${SANDBOX_PATHS.agentLogs}/response.txt`;

type JudgeSandbox = Pick<HarnessSandbox, 'getFile' | 'putFiles'> & Partial<Pick<HarnessSandbox, 'getDir'>>;

export interface JudgeVerifierResult<J> {
  reward: number;
  /** Null when there was nothing to grade (no response): no judge call was made. */
  judgement: J | null;
  /** The judge's own tokens and cost (zero when it was not called). */
  judge: JudgeAccounting;
  /**
   * The judge prompt it graded with, or would have: an attempt with nothing to grade still ran
   * under this judge setup, so it reports the configured template too.
   */
  template: JudgeTemplate;
}

const noCall = (client: ModelClient): JudgeAccounting => ({
  model: client.modelName,
  calls: 0,
  usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
  cost_usd: 0,
});

async function readResponse(sandbox: JudgeSandbox, paths: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const p of paths) {
    const data = await sandbox.getFile(p);
    if (data && data.length > 0) parts.push(data.toString('utf8'));
  }
  return parts.join('\n\n').trim();
}

/** judgment.json and reward.json; `extra` joins the reward map (HLE: the stated confidence, for calibration). */
async function writeVerdict(
  sandbox: JudgeSandbox,
  reward: number,
  judgement: unknown,
  extra: Record<string, number> = {},
): Promise<void> {
  await sandbox.putFiles([
    {
      path: `${SANDBOX_PATHS.verifierLogs}/judgment.json`,
      content: `${JSON.stringify(judgement, null, 2)}\n`,
    },
    {
      path: `${SANDBOX_PATHS.verifierLogs}/reward.json`,
      content: `${JSON.stringify({ reward, ...extra })}\n`,
    },
  ]);
}

/**
 * HLE: the judge compares the agent's answer with tests/answer.txt. The answer is
 * /logs/agent/response.txt, else recovered from the agent's own output as the adapter's test.sh
 * does (recover.ts; written back to response.txt). No answer: reward 0, no judge call. The
 * stated confidence joins reward.json (`confidence`) for the calibration error.
 */
export async function runHleJudgeVerifier(input: {
  sandbox: JudgeSandbox;
  /** Host folder of the task (with tests/question.txt and tests/answer.txt). */
  taskDir: string;
  client: ModelClient;
  signal?: AbortSignal;
  template?: HleJudgeTemplate;
  /** Tries and the wait between them (the adapter's: 20, 2^n s up to 16 s). */
  tries?: number;
  delayMs?: (attempt: number) => number;
}): Promise<JudgeVerifierResult<HleJudgement>> {
  const tests = path.join(input.taskDir, 'tests');
  const [question, answer] = await Promise.all([
    readFile(path.join(tests, 'question.txt'), 'utf8'),
    readFile(path.join(tests, 'answer.txt'), 'utf8'),
  ]);
  const template = input.template ?? hleJudgeTemplateFromEnv();
  const identity = { kind: template.kind, digest: template.digest };
  const recovered = await recoverHleResponse((p) => input.sandbox.getFile(p), RESPONSE_PATH);
  if (!recovered.response) {
    await writeVerdict(input.sandbox, 0, {
      correct: false,
      reason: `no response at ${RESPONSE_PATH} and none in the agent's output`,
    });
    return { reward: 0, judgement: null, judge: noCall(input.client), template: identity };
  }
  if (recovered.source !== 'response.txt') {
    await input.sandbox.putFiles([{ path: RESPONSE_PATH, content: recovered.response }]);
  }
  const judgement = await judgeHle({
    client: input.client,
    question: question.trim(),
    correctAnswer: answer.trim(),
    response: recovered.response,
    template,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.tries ? { tries: input.tries } : {}),
    ...(input.delayMs ? { delayMs: input.delayMs } : {}),
  });
  await writeVerdict(
    input.sandbox,
    judgement.reward,
    { ...judgement, response_source: recovered.source },
    { confidence: judgement.confidence },
  );
  return { reward: judgement.reward, judgement, judge: judgement.judge, template: identity };
}

/** A delivered file as the judge gets it: inline text, an attachment, or only its name (not readable by this model). */
export interface Deliverable {
  path: string;
  size: number;
  text?: string;
  attachment?: ChatAttachment;
}

const TEXT_FILE =
  /\.(txt|md|markdown|csv|tsv|json|jsonl|yaml|yml|xml|html?|css|js|ts|py|sh|sql|tex|log|ini|toml|r|rb|go|java|c|h|cpp|rs)$/i;
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const MAX_TEXT_BYTES = 100_000;
const MAX_ATTACHMENT_BYTES = 8 * 1024 * 1024;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

/** Models known to read images and PDFs in a chat request: Claude, and OpenAI's vision models. */
export function readsFiles(client: ModelClient): boolean {
  const r = client.resolved;
  if (r.api === 'anthropic') return true;
  if (r.provider !== 'openai') return false;
  const name = r.wireModel;
  return /^(gpt-4o|gpt-4\.1|gpt-5|o1(?!-mini)|o3(?!-mini)|o4-mini)/.test(name);
}

/** The files under /logs/artifacts: text inline, images and PDFs attached when the judge reads them. */
export async function readDeliverables(sandbox: JudgeSandbox, client: ModelClient): Promise<Deliverable[]> {
  if (!sandbox.getDir) return [];
  const dir = await mkdtemp(path.join(tmpdir(), 'osmosis-deliverables-'));
  try {
    // what a hostile agent leaves there is bounded: past these limits the judge gets no files
    const extracted = await sandbox
      .getDir(SANDBOX_PATHS.artifacts, dir, { maxBytes: 2 * MAX_TOTAL_BYTES, maxFiles: 200 })
      .catch(() => []);
    const out: Deliverable[] = [];
    let total = 0;
    const files = readsFiles(client);
    for (const f of [...extracted].sort((a, b) => a.path.localeCompare(b.path))) {
      const item: Deliverable = { path: f.path, size: f.size };
      const ext = path.extname(f.path).slice(1).toLowerCase();
      if (TEXT_FILE.test(f.path) && f.size <= MAX_TEXT_BYTES && total + f.size <= MAX_TOTAL_BYTES) {
        item.text = await readFile(f.hostPath, 'utf8');
        total += f.size;
      } else if (
        files &&
        (ext === 'pdf' || ext in IMAGE_TYPES) &&
        f.size <= MAX_ATTACHMENT_BYTES &&
        total + f.size <= MAX_TOTAL_BYTES
      ) {
        const data = (await readFile(f.hostPath)).toString('base64');
        item.attachment = {
          kind: ext === 'pdf' ? 'pdf' : 'image',
          filename: path.basename(f.path),
          media_type: ext === 'pdf' ? 'application/pdf' : IMAGE_TYPES[ext]!,
          data_base64: data,
        };
        total += f.size;
      }
      out.push(item);
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const RubricFile = z.union([
  z.array(RubricItem),
  z.object({ items: z.array(RubricItem) }).transform((r) => r.items),
]);

/** GDPVal-style: the judge scores the response against tests/rubric.json; reward in [0, 1]. */
export async function runRubricJudgeVerifier(input: {
  sandbox: JudgeSandbox;
  taskDir: string;
  client: ModelClient;
  /** The task as given to the agent (its instruction). */
  instruction: string;
  signal?: AbortSignal;
  responsePaths?: readonly string[];
}): Promise<JudgeVerifierResult<RubricJudgement>> {
  const rubric = RubricFile.parse(
    JSON.parse(await readFile(path.join(input.taskDir, 'tests', 'rubric.json'), 'utf8')),
  );
  const response = await readResponse(input.sandbox, input.responsePaths ?? [RESPONSE_PATH]);
  const files = await readDeliverables(input.sandbox, input.client);
  if (!response && files.length === 0) {
    await writeVerdict(input.sandbox, 0, {
      reason: `no deliverable at ${RESPONSE_PATH} or in ${SANDBOX_PATHS.artifacts}`,
    });
    return { reward: 0, judgement: null, judge: noCall(input.client), template: rubricJudgeTemplate() };
  }
  const judgement = await judgeRubric({
    client: input.client,
    task: input.instruction,
    rubric,
    deliverable: response,
    files,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  await writeVerdict(input.sandbox, judgement.reward, judgement);
  return { reward: judgement.reward, judgement, judge: judgement.judge, template: judgement.template };
}

/** What the attempt pipeline's worker-side verifier hook receives (apps/worker `WorkerVerifierContext`). */
export interface JudgeVerifierContext {
  sandbox: Pick<HarnessSandbox, 'getFile' | 'putFiles'>;
  task: { dir: string; instruction?: string };
  signal: AbortSignal;
  log(event: HarnessEvent): void;
}

/** What the judge verifier hook returns: the judge's usage and the prompt it graded with (`kind:sha256hex`). */
export interface JudgeVerifierOutput {
  usage: HarnessUsage;
  template: string;
}

/**
 * The pipeline's `AttemptInput.verifier` for a judge benchmark: grades with the judge client and
 * returns the judge's usage (kept apart from the agent's) and its template's identity (reported
 * also when there was nothing to grade: the attempt ran under that judge setup). `kind` is the
 * benchmark's judge kind (`hle` | `gdpval`, packages/tasks catalog).
 */
export function createJudgeVerifier(options: {
  kind: 'hle' | 'gdpval';
  client: ModelClient;
}): (ctx: JudgeVerifierContext) => Promise<JudgeVerifierOutput> {
  return async (ctx) => {
    let judge: JudgeAccounting;
    let reward: number;
    let template: JudgeTemplate;
    if (options.kind === 'hle') {
      ({ judge, reward, template } = await runHleJudgeVerifier({
        sandbox: ctx.sandbox,
        taskDir: ctx.task.dir,
        client: options.client,
        signal: ctx.signal,
      }));
    } else {
      const instruction =
        ctx.task.instruction ?? (await readFile(path.join(ctx.task.dir, 'instruction.md'), 'utf8'));
      ({ judge, reward, template } = await runRubricJudgeVerifier({
        sandbox: ctx.sandbox,
        taskDir: ctx.task.dir,
        client: options.client,
        instruction,
        signal: ctx.signal,
      }));
    }
    ctx.log({
      level: 'info',
      step: 'verifier',
      message: `judge ${judge.model} gave reward ${reward}`,
      details: { calls: judge.calls, template: judgeTemplateId(template) },
    });
    const u = judge.usage;
    return {
      usage: {
        inputTokens: u.input + u.cache_read + u.cache_write,
        outputTokens: u.output,
        cacheTokens: u.cache_read + u.cache_write,
        costUsd: judge.cost_usd,
      },
      template: judgeTemplateId(template),
    };
  };
}
