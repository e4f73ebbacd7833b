/**
 * The tracking-link form (link-builder/create): the new link with its copy button, or the API's refusal as it
 * is (a dashboard key answers 403). Used by the links view and, with the creator required, by the influencers
 * view.
 */
import { useState } from 'preact/hooks';
import { useApp } from '../state';
import type { CreatedLink } from '../types';
import { CopyButton } from './copy-button';

const FIELDS = ['landing_page', 'campaign', 'source', 'medium', 'content', 'term', 'creator'] as const;
type Field = (typeof FIELDS)[number];
const REQUIRED: ReadonlySet<Field> = new Set(['landing_page', 'campaign', 'source', 'medium']);
const EMPTY = Object.fromEntries(FIELDS.map((f) => [f, ''])) as Record<Field, string>;

export function LinkForm(props: { creatorRequired?: boolean; onCreated: (link: CreatedLink) => void }) {
  const { client } = useApp();
  const [form, setForm] = useState<Record<Field, string>>(EMPTY);
  const [created, setCreated] = useState<CreatedLink | null>(null);
  const [error, setError] = useState<string | null>(null);
  const required = (f: Field): boolean => REQUIRED.has(f) || (f === 'creator' && props.creatorRequired === true);

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    setError(null);
    const body = Object.fromEntries(FIELDS.filter((f) => form[f].trim()).map((f) => [f, form[f].trim()]));
    try {
      const link = await client.post<CreatedLink>('link-builder/create', body);
      setCreated(link);
      props.onCreated(link);
    } catch (err) {
      setCreated(null);
      setError(err instanceof Error ? err.message : String(err));
    }
  }

  return (
    <>
      <form class="link-form" onSubmit={(e) => void create(e)} data-testid="link-form">
        {FIELDS.map((f) => (
          <label>
            {f.replace('_', ' ')}
            {required(f) ? ' *' : ''}
            <input
              name={f}
              required={required(f)}
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
          <code>{created.tracking_link}</code> <CopyButton text={created.tracking_link} />
        </p>
      ) : null}
    </>
  );
}
