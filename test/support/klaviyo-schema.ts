/**
 * Klaviyo's Create Event request, as its public OpenAPI document states it (test/fixtures/klaviyo/create-event.json,
 * see its `$comment` for the source): the operation's facts and a validator of request bodies built from the
 * document's own schema, independent of the code under test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

interface CreateEventFixture {
  request: {
    method: string;
    url: string;
    authorization: string;
    revision: string;
    contentType: string;
    successStatus: number;
  };
  schema: Record<string, unknown>;
}

const fixture = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'klaviyo', 'create-event.json'), 'utf8'),
) as CreateEventFixture;

export const KLAVIYO_CREATE_EVENT = fixture.request;

const bodySchema = z.fromJSONSchema(fixture.schema, { defaultTarget: 'openapi-3.0' });

/** What Klaviyo's schema finds wrong with a request body, as `path: message` lines; `[]` when it validates. */
export function createEventViolations(body: unknown): string[] {
  const result = bodySchema.safeParse(body);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
}
