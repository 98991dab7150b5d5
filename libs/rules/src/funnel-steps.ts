// A funnel step (issue 18) as the store takes it: its SQL form where one exists
// (compileEventPredicate), the SQL pre-filter otherwise, and always the exact test with
// JSONLogic on the enriched event (json-logic-js's semantics), metered like every rule evaluation.
import {
  actionStepLogic,
  compileEventPredicate,
  eventPrefilter,
  type EnrichedEvent,
  type EventPredicate,
  type FunnelStepInput,
} from '@spoor/schemas';
import { applyWithin, truthy } from './metered-logic.js';

export interface CompiledFunnelStep {
  name: string;
  logic: unknown;
  predicate: EventPredicate | null;
  prefilter: EventPredicate;
  matches(event: EnrichedEvent): boolean;
}

/** The JSONLogic a step stands for: its own, or its action and payload conditions. */
export function funnelStepLogic(step: FunnelStepInput): unknown {
  return step.action !== undefined ? actionStepLogic(step.action, step.where ?? {}) : step.logic;
}

export function compileFunnelStep(step: FunnelStepInput, index: number): CompiledFunnelStep {
  const logic = funnelStepLogic(step);
  return {
    name: step.name ?? step.action ?? `Step ${index + 1}`,
    logic,
    predicate: compileEventPredicate(logic),
    prefilter: eventPrefilter(logic),
    matches: funnelStepMatcher(logic),
  };
}

/** The exact test of a step's JSONLogic on one event (also rebuilt on the pipeline thread, which gets the logic). */
export function funnelStepMatcher(logic: unknown): (event: EnrichedEvent) => boolean {
  return (event) => {
    try {
      return truthy(applyWithin(logic, event));
    } catch {
      return false; // as for rules: an evaluation that throws or passes its budget does not match
    }
  };
}
