/**
 * The dashboard: sign-in with the store's API key or its read-only dashboard key (kept in sessionStorage), the
 * selectors (date range, model, goal; kept in the URL hash with the view), and the views of views/index.ts.
 * It reads the public API only (docs/product.md, Dashboard).
 */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createClient } from './api';
import { bootstrap, type Bootstrap } from './bootstrap';
import { addDays } from './format';
import { AppContext, type AppState, lastDays, offeredFor, PRESETS, type Selection } from './state';
import { VIEWS } from './views';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

const KEY_STORAGE = 'oa.dashboard.key';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface Route {
  view: string;
  params: URLSearchParams;
}

function readRoute(): Route {
  const [path = '', query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { view: path || 'overview', params: new URLSearchParams(query) };
}

function SignIn(props: { onKey: (key: string) => void; error: string | null }) {
  const [key, setKey] = useState('');
  return (
    <main class="signin">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) props.onKey(key.trim());
        }}
      >
        <h1>Open Attribution</h1>
        <p>Sign in with the store's API key (ak_…) or its read-only dashboard key (dk_…).</p>
        <input
          name="key"
          type="password"
          autocomplete="off"
          placeholder="dk_… or ak_…"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Sign in</button>
        {props.error ? (
          <p class="state error" role="alert">
            {props.error}
          </p>
        ) : null}
      </form>
    </main>
  );
}

function Shell(props: { keyValue: string; boot: Bootstrap; onSignOut: () => void }) {
  const { boot } = props;
  const client = useMemo(() => createClient(props.keyValue), [props.keyValue]);
  const [route, setRoute] = useState(readRoute);
  useEffect(() => {
    const onHash = (): void => setRoute(readRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const p = route.params;
  const fallback = lastDays(boot.today, 30);
  const start = p.get('start') ?? '';
  const end = p.get('end') ?? '';
  const selection: Selection = {
    range: DATE.test(start) && DATE.test(end) && start < end ? { start, end } : fallback,
    model: boot.models.some((m) => m.code === p.get('model')) ? p.get('model')! : boot.defaultModel,
    goal: boot.goals.some((g) => g.code === p.get('goal')) ? p.get('goal')! : 'purchase',
  };
  const go = (view: string, s: Selection): void => {
    const q = new URLSearchParams({ start: s.range.start, end: s.range.end, model: s.model, goal: s.goal });
    location.hash = `#/${view}?${q.toString()}`;
  };
  const views = VIEWS.filter((v) => !v.requires || boot.operations.has(v.requires));
  const view = views.find((v) => v.id === route.view) ?? views[0]!;
  const app: AppState = {
    client,
    today: boot.today,
    selection,
    models: boot.models,
    goals: boot.goals,
    lookbackDays: boot.lookbackDays,
    freshness: boot.freshness,
    operations: boot.operations,
    select: (s) => go(view.id, { ...selection, ...s }),
  };
  const View = view.component;
  const lastDay = addDays(selection.range.end, -1);

  return (
    <AppContext.Provider value={app}>
      <header class="top">
        <strong class="brand">Open Attribution</strong>
        <nav>
          {views.map((v) => (
            <a
              href={`#/${v.id}?${new URLSearchParams({ start: selection.range.start, end: selection.range.end, model: selection.model, goal: selection.goal }).toString()}`}
              class={v.id === view.id ? 'active' : undefined}
              data-view={v.id}
            >
              {v.title}
            </a>
          ))}
        </nav>
        <button class="link" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <div class="selectors">
        <label>
          Range
          <select
            data-testid="preset"
            onChange={(e) => {
              const days = Number((e.target as HTMLSelectElement).value);
              if (days) app.select({ range: lastDays(boot.today, days) });
            }}
          >
            <option value="">Custom</option>
            {PRESETS.map((pr) => (
              <option
                value={pr.days}
                selected={
                  lastDays(boot.today, pr.days).start === selection.range.start &&
                  selection.range.end === addDays(boot.today, 1)
                }
              >
                {pr.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input
            type="date"
            data-testid="start"
            value={selection.range.start}
            onChange={(e) => {
              const v = (e.target as HTMLInputElement).value;
              if (DATE.test(v) && v < selection.range.end)
                app.select({ range: { start: v, end: selection.range.end } });
            }}
          />
        </label>
        <label>
          To
          <input
            type="date"
            data-testid="end"
            value={lastDay}
            onChange={(e) => {
              const v = (e.target as HTMLInputElement).value;
              if (DATE.test(v) && v >= selection.range.start)
                app.select({ range: { start: selection.range.start, end: addDays(v, 1) } });
            }}
          />
        </label>
        <label>
          Model
          <select
            data-testid="model"
            value={selection.model}
            onChange={(e) => app.select({ model: (e.target as HTMLSelectElement).value })}
          >
            {boot.models
              .filter((m) => offeredFor(m, selection.goal))
              .map((m) => (
                <option value={m.code}>{m.name}</option>
              ))}
          </select>
        </label>
        <label>
          Goal
          <select
            data-testid="goal"
            value={selection.goal}
            onChange={(e) => {
              const goal = (e.target as HTMLSelectElement).value;
              // A data-driven model without a fit of the new goal gives way to the default.
              const model = boot.models.find((m) => m.code === selection.model);
              app.select(model && !offeredFor(model, goal) ? { goal, model: boot.defaultModel } : { goal });
            }}
          >
            {boot.goals.map((g) => (
              <option value={g.code}>{g.name}</option>
            ))}
          </select>
        </label>
      </div>
      <main class="view" data-testid={`view-${view.id}`}>
        <View />
      </main>
    </AppContext.Provider>
  );
}

function App() {
  const [key, setKey] = useState<string | null>(() => sessionStorage.getItem(KEY_STORAGE));
  const [boot, setBoot] = useState<Bootstrap | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!key) return;
    let current = true;
    bootstrap(createClient(key)).then(
      (b) => {
        if (!current) return;
        sessionStorage.setItem(KEY_STORAGE, key);
        setBoot(b);
      },
      (e: unknown) => {
        if (!current) return;
        sessionStorage.removeItem(KEY_STORAGE);
        setKey(null);
        setError(
          e instanceof ApiError && e.status === 401
            ? 'This key is unknown or revoked.'
            : String(e instanceof Error ? e.message : e),
        );
      },
    );
    return () => {
      current = false;
    };
  }, [key]);
  if (!key) return <SignIn onKey={(k) => (setError(null), setKey(k))} error={error} />;
  if (!boot) return <div class="state loading">Signing in…</div>;
  return (
    <Shell
      keyValue={key}
      boot={boot}
      onSignOut={() => {
        sessionStorage.removeItem(KEY_STORAGE);
        setBoot(null);
        setKey(null);
      }}
    />
  );
}

render(<App />, document.getElementById('app')!);
