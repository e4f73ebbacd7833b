/**
 * Which attribution models the deployment offers, and its default. The API's `get/setting-models` is the
 * source where the deployment has it; otherwise the rule-based models this build knows with `last` as
 * the default. Asked once per catalog (one per MCP server instance, i.e. per HTTP request or per stdio run)
 * and kept for a minute.
 */
import { RULE_BASED_MODELS, type Model } from '../../contracts/src/attribution';
import { offeredGoals } from '../../contracts/src/settings';
import { FALLBACK_MODEL } from './defaults';
import { ReportApiError, type ReportClient } from './report-client';

export interface ModelList {
  codes: string[];
  defaultModel: string;
  /** Models offered for some goals only (`data_driven`: its fitted goals); every other model is offered for all. */
  goalsOf?: Record<string, string[]>;
}

/** The models of `list` a report of `goal` can be read under. */
export const modelsFor = (list: ModelList, goal: string): string[] =>
  list.codes.filter((c) => list.goalsOf?.[c]?.includes(goal) ?? true);

const KEEP_MS = 60_000;

export class ModelCatalog {
  private cached: { at: number; list: Promise<ModelList> } | null = null;

  constructor(
    private readonly client: ReportClient,
    private readonly now: () => number = Date.now,
  ) {}

  list(): Promise<ModelList> {
    const t = this.now();
    if (!this.cached || t - this.cached.at > KEEP_MS) {
      const list = this.load();
      this.cached = { at: t, list };
      // A failed look-up is not kept: the next call asks again.
      list.catch(() => {
        if (this.cached?.list === list) this.cached = null;
      });
    }
    return this.cached.list;
  }

  /** The model given, else the deployment's default. */
  async resolve(given: Model | undefined): Promise<Model> {
    // A code the deployment offers; the API checks it like any other `model`.
    return given ?? ((await this.list()).defaultModel as Model);
  }

  private async load(): Promise<ModelList> {
    try {
      const records = await this.client.settingModels();
      if (records.length > 0) {
        // `data_driven` is offered once the store has a fit (docs/product.md, Attribution, "Data-driven").
        const offered = records.map((r) => ({ code: r.code, goals: offeredGoals(r) }));
        const codes = offered.filter((o) => o.goals?.length !== 0).map((o) => o.code);
        const goalsOf = Object.fromEntries(offered.flatMap((o) => (o.goals ? [[o.code, o.goals]] : [])));
        return { codes, defaultModel: records.find((r) => r.is_default)?.code ?? codes[0]!, goalsOf };
      }
    } catch (err) {
      // 404: this deployment has no model settings yet; anything else (a refused key, ...) is the caller's to see.
      if (!(err instanceof ReportApiError && err.status === 404)) throw err;
    }
    return { codes: [...RULE_BASED_MODELS], defaultModel: FALLBACK_MODEL };
  }
}
