/** `landing_page_summary`: get/landing-page/event-summary, what visitors of a landing page did. */
import { z } from 'zod';
import type { LandingPageSummaryRequest } from '../../../contracts/src/analytics';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dateRangeInput } from './inputs';
import { dateRangeOutput } from './outputs';
import { defineTool } from './tool';

const filter = (what: string) => z.string().max(2048).optional().describe(`Only sessions with this ${what}.`);

export const landingPageSummary = defineTool({
  name: 'landing_page_summary',
  title: 'Landing page summary',
  description:
    'What the visitors of a landing page did over a date range: distinct visitors and sessions that landed on the ' +
    'page, and for every event kind (page views, product views, add to cart, checkout steps, purchases, ...) the ' +
    'persons who sent one, the count and the share of visitors (POST get/landing-page/event-summary). A trailing * ' +
    'in landing_page matches every path under a prefix.',
  input: z.strictObject({
    ...dateRangeInput,
    landing_page: z
      .string()
      .min(1)
      .max(2048)
      .describe('A path such as /products/tee; a trailing * matches a prefix (/products/*).'),
    channel: filter('channel'),
    source: filter('source'),
    medium: filter('medium'),
    campaign: filter('campaign'),
  }),
  output: z.object({
    request: dateRangeOutput.extend({ landing_page: z.string(), dimensions: z.record(z.string(), z.string()) }),
    landing_page: z.string(),
    visitors: z.number(),
    sessions: z.number(),
    events: z.array(z.object({ event: z.string(), users: z.number(), count: z.number(), rate: z.number() })),
  }),
  async run(args, { client, now }) {
    const dimensions = Object.fromEntries(
      (['channel', 'source', 'medium', 'campaign'] as const).flatMap((k) => (args[k] ? [[k, args[k]]] : [])),
    ) as Record<string, string>;
    const request: LandingPageSummaryRequest & { dimensions: Record<string, string> } = {
      ...resolveDateRange(args, now()),
      landing_page: args.landing_page,
      dimensions,
    };
    const data = await client.landingPageSummary(request);
    const text = formatTable(
      data.events.filter((e) => e.count > 0),
      [
        { header: 'event', value: (e) => e.event },
        { header: 'users', value: (e) => e.users, format: 'int' },
        { header: 'count', value: (e) => e.count, format: 'int' },
        { header: 'share of visitors', value: (e) => e.rate, format: 'percent' },
      ],
    );
    return {
      structured: { request, ...data },
      text:
        `Landing page ${data.landing_page}, ${request.start_date} to ${request.end_date} (end exclusive): ` +
        `${data.visitors} visitors, ${data.sessions} sessions.\n${text}`,
    };
  },
});
