import { RULE_BASED_MODELS } from '../../contracts/src/attribution';
import { ModelCatalog, modelsFor } from './models';
import { ReportApiError, type ModelSetting, type ReportClient } from './report-client';

/** A report client whose only operation is get/setting-models, answering `answer()`. */
function clientAnswering(answer: () => Promise<ModelSetting[]>): ReportClient & { calls: number } {
  const client = {
    calls: 0,
    baseUrl: 'http://api.test',
    settingModels: () => {
      client.calls++;
      return answer();
    },
  };
  return client as unknown as ReportClient & { calls: number };
}

const setting = (code: string, is_default = false): ModelSetting => ({ code, name: code, is_default });

describe('ModelCatalog', () => {
  it("takes the deployment's models and default from get/setting-models", async () => {
    const catalog = new ModelCatalog(
      clientAnswering(() =>
        Promise.resolve([
          setting('first'),
          setting('last'),
          setting('linear'),
          setting('position'),
          setting('time_decay', true),
        ]),
      ),
    );
    expect(await catalog.list()).toEqual({
      codes: ['first', 'last', 'linear', 'position', 'time_decay'],
      defaultModel: 'time_decay',
      goalsOf: {},
    });
    expect(await catalog.resolve(undefined)).toBe('time_decay');
    expect(await catalog.resolve('first')).toBe('first');
  });

  it('offers data_driven only for its fitted goals, and not at all before a fit', async () => {
    const dataDriven = (fitted: string[]): ModelSetting => ({
      ...setting('data_driven'),
      data_driven: { goals: ['purchase', 'add_to_cart'].map((goal) => ({ goal, fitted: fitted.includes(goal) })) },
    });
    const fitted = await new ModelCatalog(
      clientAnswering(() => Promise.resolve([setting('last', true), dataDriven(['purchase'])])),
    ).list();
    expect(fitted.codes).toEqual(['last', 'data_driven']);
    expect(modelsFor(fitted, 'purchase')).toEqual(['last', 'data_driven']);
    expect(modelsFor(fitted, 'add_to_cart')).toEqual(['last']);
    const unfitted = await new ModelCatalog(
      clientAnswering(() => Promise.resolve([setting('last', true), dataDriven([])])),
    ).list();
    expect(unfitted.codes).toEqual(['last']);
  });

  it('falls back to the built-in models and `last` where the operation does not exist (404)', async () => {
    const catalog = new ModelCatalog(
      clientAnswering(() =>
        Promise.reject(new ReportApiError(404, 'path: no route for POST /v2-4-2/api/get/setting-models')),
      ),
    );
    expect(await catalog.list()).toEqual({ codes: [...RULE_BASED_MODELS], defaultModel: 'last' });
  });

  it('passes other failures on, and asks again on the next call', async () => {
    let fail = true;
    const client = clientAnswering(() =>
      fail
        ? Promise.reject(new ReportApiError(401, 'the API refused the key'))
        : Promise.resolve([setting('last', true)]),
    );
    const catalog = new ModelCatalog(client);
    await expect(catalog.list()).rejects.toThrow('refused the key');
    fail = false;
    expect((await catalog.list()).defaultModel).toBe('last');
    expect(client.calls).toBe(2);
  });

  it('keeps the list for a minute', async () => {
    let t = 0;
    const client = clientAnswering(() => Promise.resolve([setting('last', true)]));
    const catalog = new ModelCatalog(client, () => t);
    await catalog.list();
    t = 59_000;
    await catalog.list();
    expect(client.calls).toBe(1);
    t = 61_000;
    await catalog.list();
    expect(client.calls).toBe(2);
  });
});
