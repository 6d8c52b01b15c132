import type { Knex } from 'knex';
import { findModel, type ModelRow } from '../../db/models';
import {
  DEFAULT_OUTPUT_TOKENS,
  estimateTokens,
  MAX_ALTERNATIVES,
  selectModel,
  type Budget,
  type Complexity,
  type Exclusion,
  type Task,
} from '../../domain/models/selection';
import type { ChatMessage } from '../../lib/openai-compatible';
import type { ModelCatalog } from '../models/catalog';
import type { ReasoningSettings } from './settings';

export interface PlanDeps {
  db: Knex;
  catalog: ModelCatalog;
  settings: Pick<ReasoningSettings, 'providers'>;
}

export interface ReasonRequest {
  messages: ChatMessage[];
  task: Task;
  complexity: Complexity;
  budget: Budget;
  pinned_model?: string | undefined;
  entity_id?: string | undefined;
  temperature?: number | undefined;
  max_tokens?: number | undefined;
  /** The registered prompt the messages were built from (its content leads them as the system message). */
  prompt?: { key: string; version: string } | undefined;
}

/** The model a reasoning request goes to, why, and the ranked alternatives it may fall back to. */
export interface ModelChoice {
  selected: string;
  reason: string;
  alternatives: Array<{ model: string; provider: string; score: number; factors?: Record<string, number> }>;
  excluded?: Exclusion[];
}

export interface ReasonPlan {
  request: ReasonRequest;
  /** The models to try, in order: the selected one, then its alternatives. */
  candidates: ModelRow[];
  modelChoice: ModelChoice;
}

/** Why no model can take a request; the api/ layer words it for the caller. */
export type PlanRefusal =
  /** No provider is configured (unconfigured: null), or not the pinned model's. */
  | { ok: false; code: 'reasoning_not_configured'; unconfigured: { model_id: string; provider: string } | null }
  | { ok: false; code: 'pinned_model_unknown' | 'pinned_model_deprecated'; model_id: string }
  /** The catalog of the configured providers is empty (registryEmpty), or every model in it was excluded. */
  | { ok: false; code: 'no_model_available'; providers: string[]; registryEmpty: boolean; excluded: Exclusion[] };

/** The model a request goes to and the ordered fallbacks, or why none can take it. */
export async function planReasoning(
  deps: PlanDeps,
  request: ReasonRequest,
): Promise<{ ok: true; plan: ReasonPlan } | PlanRefusal> {
  const providers = Object.keys(deps.settings.providers);
  if (providers.length === 0) return { ok: false, code: 'reasoning_not_configured', unconfigured: null };
  const models = await deps.catalog.models();
  if (request.pinned_model !== undefined) return planPinned(deps, request, request.pinned_model, models);

  const { task, complexity, budget } = request;
  const sizes = {
    prompt_tokens: estimateTokens(request.messages),
    output_tokens: request.max_tokens ?? DEFAULT_OUTPUT_TOKENS,
  };
  const selection = selectModel(models, { task, complexity, budget, ...sizes }, new Set(providers));
  if (!selection.ok)
    return {
      ok: false,
      code: 'no_model_available',
      providers,
      registryEmpty: models.length === 0,
      excluded: selection.excluded,
    };
  const byId = new Map(models.map((model) => [model.model_id, model]));
  const [best, ...rest] = selection.ranked;
  return {
    ok: true,
    plan: {
      request,
      candidates: selection.ranked.map((scored) => byId.get(scored.model_id)!),
      modelChoice: {
        selected: best!.model_id,
        reason: selection.reason,
        alternatives: rest
          .slice(0, MAX_ALTERNATIVES)
          .map((scored) => ({ model: scored.model_id, provider: scored.provider, score: scored.score })),
      },
    },
  };
}

/** A pinned model is honoured without fallback, if the catalog serves it and it is not deprecated. */
async function planPinned(
  deps: PlanDeps,
  request: ReasonRequest,
  modelId: string,
  models: ModelRow[],
): Promise<{ ok: true; plan: ReasonPlan } | PlanRefusal> {
  const pinned = models.find((model) => model.model_id === modelId);
  if (!pinned) {
    const known = await findModel(deps.db, modelId);
    if (!known) return { ok: false, code: 'pinned_model_unknown', model_id: modelId };
    return {
      ok: false,
      code: 'reasoning_not_configured',
      unconfigured: { model_id: known.model_id, provider: known.provider },
    };
  }
  if (pinned.status === 'deprecated') return { ok: false, code: 'pinned_model_deprecated', model_id: pinned.model_id };
  const modelChoice = {
    selected: pinned.model_id,
    reason: `pinned_model ${pinned.model_id} (${pinned.status}), honoured without fallback`,
    alternatives: [],
  };
  return { ok: true, plan: { request, candidates: [pinned], modelChoice } };
}
