/** `tracking_links_report`: get/link-builder-analysis/list, the figures of the store's tracking links. */
import { z } from 'zod';
import type { LinkAnalysisRequest } from '../../../contracts/src/reports';
import { resolveDateRange } from '../defaults';
import { formatTable } from '../text-table';
import { dateRangeInput, pageInput, pageSizeInput } from './inputs';
import { dateRangeOutput, trackingLinkOutput } from './outputs';
import { defineTool } from './tool';

export const trackingLinksReport = defineTool({
  name: 'tracking_links_report',
  title: 'Tracking links report',
  description:
    "The store's tracking links (short links with utm parameters), newest first, with their figures over a date " +
    'range: clicks, visitors (total_users, new_users), purchases and their value, add-to-carts, collection views ' +
    'and searches in the visits from each link (POST get/link-builder-analysis/list). Paged.',
  input: z.strictObject({ ...dateRangeInput, page: pageInput, page_size: pageSizeInput }),
  output: z.object({
    request: dateRangeOutput.extend({ page: z.number(), page_size: z.number() }),
    total: z.number().describe('Links over all pages.'),
    page_size: z.number(),
    records: z.array(trackingLinkOutput),
  }),
  async run(args, { client, now }) {
    const request: Required<LinkAnalysisRequest> = {
      ...resolveDateRange(args, now()),
      page: args.page,
      page_size: args.page_size,
    };
    const data = await client.trackingLinks(request);
    const text = formatTable(
      data.records,
      [
        { header: 'link', value: (r) => r.tracking_link.replace(/^https?:\/\//, '') },
        { header: 'campaign', value: (r) => r.campaign },
        { header: 'clicks', value: (r) => r.clicks, format: 'int' },
        { header: 'visitors', value: (r) => r.total_users, format: 'int' },
        { header: 'purchases', value: (r) => r.purchase, format: 'number' },
        { header: 'revenue', value: (r) => r.purchase_conversion_value, format: 'money' },
      ],
      { total: data.total },
    );
    return {
      structured: { request, ...data },
      text: `Tracking links ${request.start_date} to ${request.end_date} (end exclusive), page ${request.page}:\n${text}`,
    };
  },
});
