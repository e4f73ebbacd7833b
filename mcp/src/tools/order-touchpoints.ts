/** `order_touchpoints`: order/attribution-touch, the first and last touchpoints of orders. */
import { z } from 'zod';
import type { ApiTouchpoint } from '../../../contracts/src/reports';
import { formatTable } from '../text-table';
import { orderTouchpointsOutput } from './outputs';
import { defineTool } from './tool';

/** channel · source / medium · campaign (the time is in the records). */
const describeTouch = (t: ApiTouchpoint | null): string =>
  t ? [t.channel, [t.source, t.medium].filter(Boolean).join(' / '), t.campaign].filter(Boolean).join(' · ') : '-';

export const orderTouchpoints = defineTool({
  name: 'order_touchpoints',
  title: 'First and last touchpoints of orders',
  description:
    'The first and the last marketing touchpoint (channel, source, medium, campaign, visit start in store time) ' +
    'that the attribution credited for each of up to 100 orders (POST order/attribution-touch). Unknown or ' +
    'cancelled orders have null touchpoints.',
  input: z.strictObject({
    order_ids: z.array(z.string().min(1)).min(1).max(100).describe('One to 100 order ids.'),
  }),
  output: z.object({
    request: z.object({ order_ids: z.array(z.string()) }),
    records: z.array(orderTouchpointsOutput),
  }),
  async run(args, { client }) {
    const request = { order_ids: args.order_ids };
    const records = await client.orderTouchpoints(request);
    const text = formatTable(
      records,
      [
        { header: 'order', value: (r) => r.order_id },
        { header: 'first touch', value: (r) => describeTouch(r.first_touchpoint) },
        { header: 'last touch', value: (r) => describeTouch(r.last_touchpoint) },
      ],
      { maxCellWidth: 64 },
    );
    return { structured: { request, records }, text: `Touchpoints of ${records.length} orders:\n${text}` };
  },
});
