/**
 * Attribution reports (spec operations 1 and 2). Thin: authentication and rate limit (5 requests/s per
 * key) by tsoa's security hook, body validation by tsoa plus the service's rules, SQL in the service.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  GetListRequest,
  GetListResponse,
  GetListSumRequest,
  GetListSumResponse,
} from '../../../contracts/src/reports';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import { type ReportService } from '../services/report.service';

@Route('{version}/api/all-attribution')
@Tags('Attribution reports')
export class ReportsController extends Controller {
  private readonly service: ReportService;

  constructor(services: ApiServices) {
    super();
    this.service = services.reports;
  }

  /**
   * Attribution report, paged. Sums the attribution of conversions of the goal under the model over
   * [start_date, end_date) in the store time zone, grouped by the requested dimensions (the others are
   * returned as ""; `platform` is always ""), one record per combination, with ad spend joined on the
   * requested dimensions (spend has no landing page:
   * with landing_page requested, spend rows carry landing_page ""). Sorted by `orders` (any of the fourteen
   * numbers or a requested dimension), default conversions desc; ties by the dimensions ascending.
   * Conversions are fractional under linear and position; money is in the store currency, 2 decimals.
   * Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('get-list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async getList(
    @Path('version') _version: string,
    @Body() body: GetListRequest,
    @Request() req: ExpressRequest,
  ): Promise<GetListResponse> {
    return success(await this.service.list(principalOf(req).store, body));
  }

  /**
   * The fourteen numbers over the same filters as get-list: the additive ones are the sum over every
   * get-list record, the ratios are computed from those sums. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('get-list-sum')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async getListSum(
    @Path('version') _version: string,
    @Body() body: GetListSumRequest,
    @Request() req: ExpressRequest,
  ): Promise<GetListSumResponse> {
    return success(await this.service.sum(principalOf(req).store, body));
  }
}
