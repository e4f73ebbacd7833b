/** Order journeys and touchpoints (spec operations 3 and 4); 20 requests/s per key. */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  AttributionTouchRequest,
  AttributionTouchResponse,
  OrderEventRequest,
  OrderEventResponse,
} from '../../../contracts/src/reports';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import { DEFAULT_JOURNEY_PAGE_SIZE, type OrderService } from '../services/order.service';

@Route('{version}/api/order')
@Tags('Orders')
export class OrdersController extends Controller {
  private readonly service: OrderService;

  constructor(services: ApiServices) {
    super();
    this.service = services.orders;
  }

  /**
   * The order's journey: the events of the person who placed it (every device joined by email or customer
   * id) within the store's lookback window, up to and including the completing checkout, ascending, with
   * `event_at` in store time. A session's landing event has `event_type` ad, email, social_media,
   * organic_search, referral or direct (with `ad` filled for paid touches); other events have their kind
   * name and the matching kind object. Page from 1, page_size 1 to 100 (default 20).
   * @param _version API version: `v2-4-2`
   */
  @Post('event')
  @Security('api_key', ['journey'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(404, 'No such order in this store')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async orderEvent(
    @Path('version') _version: string,
    @Body() body: OrderEventRequest,
    @Request() req: ExpressRequest,
  ): Promise<OrderEventResponse> {
    const data = await this.service.journey(
      principalOf(req).store,
      body.order_id,
      body.page ?? 1,
      body.page_size ?? DEFAULT_JOURNEY_PAGE_SIZE,
    );
    return success(data);
  }

  /**
   * First and last touchpoints of up to 100 orders (the credited touchpoints after the direct rule, as the
   * attribution used them); unknown or cancelled orders come back with null touchpoints. `time` is the
   * touchpoint's session start in store time.
   * @param _version API version: `v2-4-2`
   */
  @Post('attribution-touch')
  @Security('api_key', ['journey'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async attributionTouch(
    @Path('version') _version: string,
    @Body() body: AttributionTouchRequest,
    @Request() req: ExpressRequest,
  ): Promise<AttributionTouchResponse> {
    return success(await this.service.touchpoints(principalOf(req).store, body.order_ids));
  }
}
