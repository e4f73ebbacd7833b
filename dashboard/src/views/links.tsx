/**
 * Links: create a tracking link (link-builder/create) and copy it; the figures of every link over the range
 * (get/link-builder-analysis/list). A dashboard key cannot create links: the API's 403 is shown as it is.
 */
import { useState } from 'preact/hooks';
import { Basis, Show, Table } from '../components/parts';
import { useData } from '../components/use-data';
import { fmtCount, fmtMoney } from '../format';
import { useApp } from '../state';
import type { CreatedLink, LinkRecord, Page } from '../types';

const FIELDS = ['landing_page', 'campaign', 'source', 'medium', 'content', 'term', 'creator'] as const;
type Field = (typeof FIELDS)[number];
const REQUIRED: ReadonlySet<Field> = new Set(['landing_page', 'campaign', 'source', 'medium']);

export function Links() {
  const { client, selection } = useApp();
  const { range } = selection;
  const [form, setForm] = useState<Record<Field, string>>({
    landing_page: '',
    campaign: '',
    source: '',
    medium: '',
    content: '',
    term: '',
    creator: '',
  });
  const [created, setCreated] = useState<CreatedLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [version, setVersion] = useState(0);
  const links = useData(
    () =>
      client.post<Page<LinkRecord>>('get/link-builder-analysis/list', {
        start_date: range.start,
        end_date: range.end,
        page: 1,
        page_size: 100,
      }),
    [client, range.start, range.end, version],
  );

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    setError(null);
    setCopied(false);
    const body = Object.fromEntries(FIELDS.filter((f) => form[f].trim()).map((f) => [f, form[f].trim()]));
    try {
      setCreated(await client.post<CreatedLink>('link-builder/create', body));
      setVersion(version + 1);
    } catch (err) {
      setCreated(null);
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  async function copy(): Promise<void> {
    if (!created) return;
    await navigator.clipboard.writeText(created.tracking_link);
    setCopied(true);
  }

  return (
    <section>
      <h1>Links</h1>
      <form class="link-form" onSubmit={(e) => void create(e)} data-testid="link-form">
        {FIELDS.map((f) => (
          <label>
            {f.replace('_', ' ')}
            {REQUIRED.has(f) ? ' *' : ''}
            <input
              name={f}
              required={REQUIRED.has(f)}
              type={'text' as const}
              inputMode={f === 'landing_page' ? 'url' : 'text'}
              value={form[f]}
              onInput={(e) => setForm({ ...form, [f]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <button type="submit">Create link</button>
      </form>
      {error ? (
        <div class="state error" role="alert" data-testid="link-error">
          {error}
        </div>
      ) : null}
      {created ? (
        <p class="created" data-testid="created-link">
          <code>{created.tracking_link}</code>{' '}
          <button type="button" onClick={() => void copy()}>
            {copied ? 'Copied' : 'Copy'}
          </button>
        </p>
      ) : null}
      <h2>Link figures</h2>
      <Basis model={false} goal={false} />
      <Show data={links} empty={(d) => d.records.length === 0}>
        {(d) => (
          <Table
            testid="links-table"
            columns={[
              { label: 'Link', value: (r) => r.tracking_link },
              { label: 'Campaign', value: (r) => `${r.campaign} · ${r.source} / ${r.medium}` },
              { label: 'Clicks', value: (r) => fmtCount(r.clicks), numeric: true },
              { label: 'Visitors', value: (r) => fmtCount(r.total_users), numeric: true },
              { label: 'Purchases', value: (r) => fmtCount(r.purchase), numeric: true },
              { label: 'Revenue', value: (r) => fmtMoney(r.purchase_conversion_value), numeric: true },
            ]}
            rows={d.records}
          />
        )}
      </Show>
    </section>
  );
}
