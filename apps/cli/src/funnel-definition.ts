// What `spoor funnel` sends: steps from the command line or a file, and the counting options
// (docs/cli.md, "Funnels"; the request is FunnelQueryRequest, docs/analytics.md).
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { components } from '@spoor/client';
import { UsageError } from './cli-errors.js';

export type FunnelStep = components['schemas']['FunnelStep'];
export type FunnelOptionsBody = Pick<
  components['schemas']['FunnelQueryRequest'],
  'steps' | 'unit' | 'order' | 'conversion_window_ms' | 'breakdown'
>;

export const UNITS = ['session', 'visitor'] as const;
export const ORDERS = ['strict', 'any'] as const;
export const BREAKDOWNS = ['browser', 'country', 'utm_source', 'entry_page'] as const;
const DAY_MS = 86_400_000;

export interface StepOptions {
  step?: string[];
  stepsFile?: string;
  unit?: (typeof UNITS)[number];
  order?: (typeof ORDERS)[number];
  conversionWindow?: number;
  breakdown?: (typeof BREAKDOWNS)[number];
}

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not JSON: ${(err as Error).message}`);
  }
}

/**
 * One `--step`: `pageview` (an action), `click:{"button":"buy"}` (an action whose payload
 * fields equal these values), or `{"==":[{"var":"path"},"/pricing"]}` (a JSONLogic rule over
 * one enriched event). A value starting with `{` is a rule, so no action name is mistaken for
 * one; an action may hold a colon as long as no `{` follows it.
 */
export function parseStep(text: string): FunnelStep {
  const t = text.trim();
  if (!t) throw new UsageError('--step is empty: give an action, action:{"field":value}, or a JSONLogic object');
  if (t.startsWith('{')) return { logic: json(t, `--step ${t}`) };
  const m = /^([^:{]+):(\{[\s\S]*)$/.exec(t);
  if (!m) return { action: t };
  const where = json(m[2]!, `the payload condition of --step ${t}`);
  if (!where || typeof where !== 'object' || Array.isArray(where))
    throw new UsageError(`the payload condition of --step ${t} must be a JSON object`);
  return { action: m[1]!.trim(), where: where as FunnelStep['where'] };
}

/** A steps file (YAML or JSON): a list of steps, or a mapping with `steps:` and any of unit, order, conversion_window_ms, breakdown. */
export async function readStepsFile(path: string): Promise<Record<string, unknown> & { steps: FunnelStep[] }> {
  let doc: unknown;
  try {
    doc = parseYaml(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const mapping = (Array.isArray(doc) ? { steps: doc } : doc) as { steps?: unknown } | null;
  if (!mapping || typeof mapping !== 'object' || !Array.isArray(mapping.steps))
    throw new UsageError(`${path} holds no steps: expected a list of steps or a mapping with a steps: list`);
  // Each step is sent as written; the server says what is wrong with one (422, by its index).
  return mapping as Record<string, unknown> & { steps: FunnelStep[] };
}

/**
 * The request's steps and options: the command line's, over a steps file's, over the API's
 * defaults. A file's values go as written: the server's 422 says what is wrong with them.
 */
export async function funnelBody(o: StepOptions): Promise<FunnelOptionsBody> {
  if (o.step?.length && o.stepsFile)
    throw new UsageError('give the steps either with --step or with --steps-file, not both');
  const file = (o.stepsFile ? await readStepsFile(o.stepsFile) : {}) as Partial<FunnelOptionsBody>;
  const steps = file.steps ?? (o.step ?? []).map(parseStep);
  if (steps.length < 2) throw new UsageError('a funnel has at least two steps: --step a --step b, or --steps-file');
  const breakdown = o.breakdown ?? file.breakdown;
  return {
    steps,
    unit: o.unit ?? file.unit ?? 'session',
    order: o.order ?? file.order ?? 'strict',
    conversion_window_ms: o.conversionWindow ?? file.conversion_window_ms ?? DAY_MS,
    ...(breakdown ? { breakdown } : {}),
  };
}
