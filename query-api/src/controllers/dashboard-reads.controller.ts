/**
 * The small read operations the dashboard is built on besides the reports (docs/product.md, Dashboard). Public
 * like the others; the API key or the read-only dashboard key; the report rate limit (5 requests/s per key).
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  DailySummaryRequest,
  DailySummaryResponse,
  DataHealthResponse,
  OrderListRequest,
  OrderListResponse,
} from '../../../contracts/src/dashboard';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { DashboardReadsService } from '../services/dashboard-reads.service';

@Route('{version}/api/get')
@Tags('Dashboard')
export class DashboardReadsController extends Controller {
  private readonly service: DashboardReadsService;

  constructor(services: ApiServices) {
    super();
    this.service = services.dashboardReads;
  }

  /**
   * The fourteen numbers of each day of [start_date, end_date) (at most 92 days), ascending, days without data
   * included: each record equals get-list-sum over that one day with the same model and goal.
   * Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('daily-summary')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async dailySummary(
    @Path('version') _version: string,
    @Body() body: DailySummaryRequest,
    @Request() req: ExpressRequest,
  ): Promise<DailySummaryResponse> {
    return success(await this.service.daily(principalOf(req).store, body));
  }

  /**
   * The attributed orders (purchase conversions) placed in [start_date, end_date) in the store time zone, newest
   * first, paged; their touchpoints are in order/attribution-touch and their journeys in order/event.
   * Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('order/list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async orderList(
    @Path('version') _version: string,
    @Body() body: OrderListRequest,
    @Request() req: ExpressRequest,
  ): Promise<OrderListResponse> {
    return success(await this.service.orders(principalOf(req).store, body));
  }

  /**
   * Is data arriving and being processed: storefront events stored per minute over the last hour, the latest
   * data of each source, the share of the last 30 days' orders the tracker saw complete, dead letters, and
   * when the views last took in an event. No body. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('data-health')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async dataHealth(
    @Path('version') _version: string,
    @Request() req: ExpressRequest,
  ): Promise<DataHealthResponse> {
    return success(await this.service.health(principalOf(req).store));
  }
}
