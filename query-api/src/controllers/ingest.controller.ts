/**
 * Ingestion routes (docs/product.md, Ingestion): storefront events with the ingest key header, the browser beacon route
 * with the key in the path, and the store pushes. Bodies are validated item by item by the service (not by
 * tsoa) so a batch can report each bad item by index and accept the rest.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { IngestResponse } from '../../../contracts/src/ingest';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import { badRequest } from '../app/errors';
import { type IngestService } from '../services/ingest.service';

@Route('')
@Tags('Ingestion')
export class IngestController extends Controller {
  private readonly service: IngestService;

  constructor(private readonly services: ApiServices) {
    super();
    this.service = services.ingest;
  }

  /**
   * Push storefront events: one event envelope or an array of at most 500 (body at most 1 MiB).
   * The reply is sent after the stream acknowledged every accepted event. In a batch, bad items are
   * listed in `data.rejected` by index and the others are accepted; a request with no valid item is 400.
   * @param body an event envelope (clientId, clientIp, context, data, id, name, seq, timestamp, type) or an array of them
   */
  @Post('{version}/api/events')
  @Security('ingest_key', ['ingest'])
  @SuccessResponse(200, 'Accepted')
  @Response<ErrorBody>(400, 'Invalid event; the message names the field')
  @Response<ErrorBody>(401, 'Missing or unknown ingest key')
  @Response<ErrorBody>(413, 'Body larger than 1 MiB')
  @Response<ErrorBody>(503, 'Stream unavailable; retry')
  public async pushEvents(
    @Path('version') _version: string,
    @Body() body: unknown,
    @Request() req: ExpressRequest,
  ): Promise<IngestResponse> {
    return success(await this.service.ingestEvents(principalOf(req).store, body));
  }

  /**
   * Browser route of the store-side tracker and the Shopify pixels (`navigator.sendBeacon` cannot set
   * headers): the ingest key is in the path, the body is JSON sent as `text/plain` (no CORS preflight) or
   * `application/json`, CORS is open to any origin. A missing `clientIp` is taken from the request, a missing
   * `seq` is 0 and a missing `type` is `standard` (Shopify pixels omit them). Rate limited per ingest key and
   * per client IP (429 with Retry-After).
   */
  @Post('collect/{ingest_key}')
  @SuccessResponse(200, 'Accepted')
  @Response<ErrorBody>(400, 'Invalid event; the message names the field')
  @Response<ErrorBody>(401, 'Unknown ingest key')
  @Response<ErrorBody>(413, 'Body larger than 1 MiB')
  @Response<ErrorBody>(429, 'Rate limit exceeded; retry after Retry-After seconds')
  @Response<ErrorBody>(503, 'Stream unavailable; retry')
  public async collect(
    @Path() ingest_key: string,
    @Body() body: unknown,
    @Request() req: ExpressRequest,
  ): Promise<IngestResponse> {
    const principal = await this.services.authenticateCollectKey(ingest_key);
    let parsed = body;
    if (typeof body === 'string') {
      try {
        parsed = JSON.parse(body);
      } catch {
        throw badRequest('body', 'is not valid JSON');
      }
    }
    return success(await this.service.ingestEvents(principal.store, parsed, { clientIp: req.ip ?? '' }));
  }

  /** Push orders (Shopify Admin REST order shape); an idempotent upsert by order id, a newer updated_at wins. */
  @Post('{version}/api/store/orders')
  @Security('ingest_key', ['ingest'])
  @Response<ErrorBody>(400, 'Invalid order; the message names the field')
  public async pushOrders(
    @Path('version') _version: string,
    @Body() body: unknown,
    @Request() req: ExpressRequest,
  ): Promise<IngestResponse> {
    return success(await this.service.ingestPushes(principalOf(req).store, 'orders', body));
  }

  /** Push products (Shopify Admin REST product shape; `variants[].cost` is the unit cost of goods). */
  @Post('{version}/api/store/products')
  @Security('ingest_key', ['ingest'])
  @Response<ErrorBody>(400, 'Invalid product; the message names the field')
  public async pushProducts(
    @Path('version') _version: string,
    @Body() body: unknown,
    @Request() req: ExpressRequest,
  ): Promise<IngestResponse> {
    return success(await this.service.ingestPushes(principalOf(req).store, 'products', body));
  }

  /** Push customers (Shopify Admin REST customer shape), listed by GET /{version}/api/customers. */
  @Post('{version}/api/store/customers')
  @Security('ingest_key', ['ingest'])
  @Response<ErrorBody>(400, 'Invalid customer; the message names the field')
  public async pushCustomers(
    @Path('version') _version: string,
    @Body() body: unknown,
    @Request() req: ExpressRequest,
  ): Promise<IngestResponse> {
    return success(await this.service.ingestPushes(principalOf(req).store, 'customers', body));
  }

  /** Push daily ad spend rows; an idempotent upsert by (date, platform, account, campaign, ad set, ad). */
  @Post('{version}/api/store/ad-spend')
  @Security('ingest_key', ['ingest'])
  @Response<ErrorBody>(400, 'Invalid row; the message names the field')
  public async pushAdSpend(
    @Path('version') _version: string,
    @Body() body: unknown,
    @Request() req: ExpressRequest,
  ): Promise<IngestResponse> {
    return success(await this.service.ingestPushes(principalOf(req).store, 'ad-spend', body));
  }
}
