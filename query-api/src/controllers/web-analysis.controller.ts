/**
 * The web funnel (docs/product.md, Analytics). Thin: authentication and rate limit (5 requests/s per key) by
 * tsoa's security hook, body validation by tsoa plus the service's rules, SQL in the service.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  WebAnalysisListResponse,
  WebAnalysisRequest,
  WebAnalysisSumRequest,
  WebAnalysisSumResponse,
} from '../../../contracts/src/analytics';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { WebAnalysisService } from '../services/web-analysis.service';

@Route('{version}/api/get/web-analysis')
@Tags('Web analytics')
export class WebAnalysisController extends Controller {
  private readonly service: WebAnalysisService;

  constructor(services: ApiServices) {
    super();
    this.service = services.webAnalysis;
  }

  /**
   * The funnel per group of sessions over [start_date, end_date) in the store time zone, grouped by 0 to 3
   * of channel, source, medium, campaign, landing_page (others `""`): distinct persons (exact), new and
   * returning, sessions, engagement, persons per funnel step (a person counts in a step when one of its
   * sessions in the group reached it), last-touch purchases and revenue, and spend. Default sort
   * unique_users desc; ties by the dimensions. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async list(
    @Path('version') _version: string,
    @Body() body: WebAnalysisRequest,
    @Request() req: ExpressRequest,
  ): Promise<WebAnalysisListResponse> {
    return success(await this.service.list(principalOf(req).store, body));
  }

  /**
   * The funnel over every session of the range: distinct persons are counted once overall (so the sum is
   * not the sum of the list's records). Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('list-sum')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async listSum(
    @Path('version') _version: string,
    @Body() body: WebAnalysisSumRequest,
    @Request() req: ExpressRequest,
  ): Promise<WebAnalysisSumResponse> {
    return success(await this.service.sum(principalOf(req).store, body));
  }
}
