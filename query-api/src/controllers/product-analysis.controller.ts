/**
 * Product analytics (docs/product.md, Analytics): four operations. Rate limit: 5 requests/s per key.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  ProductAnalysisListResponse,
  ProductAnalysisRequest,
  ProductAnalysisSumRequest,
  ProductAnalysisSumResponse,
  ProductChannelListResponse,
  ProductChannelRequest,
  ProductTrendRequest,
  ProductTrendResponse,
} from '../../../contracts/src/analytics';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { ProductAnalysisService } from '../services/product-analysis.service';

@Route('{version}/api/get/product-analysis')
@Tags('Product analytics')
export class ProductAnalysisController extends Controller {
  private readonly service: ProductAnalysisService;

  constructor(services: ApiServices) {
    super();
    this.service = services.productAnalysis;
  }

  /**
   * Per product over [start_date, end_date) in the store time zone: views, add-to-carts and checkouts (by
   * the day of the event) with distinct viewers and cart adders, purchases, units, revenue (the product's
   * share of its purchases' value) and cost of goods (by the day of the purchase). Default sort revenue
   * desc; ties by product_id. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async list(
    @Path('version') _version: string,
    @Body() body: ProductAnalysisRequest,
    @Request() req: ExpressRequest,
  ): Promise<ProductAnalysisListResponse> {
    return success(await this.service.list(principalOf(req).store, body));
  }

  /**
   * The same figures over every (or the given) products; distinct persons are counted once over all of
   * them. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('list-sum')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async listSum(
    @Path('version') _version: string,
    @Body() body: ProductAnalysisSumRequest,
    @Request() req: ExpressRequest,
  ): Promise<ProductAnalysisSumResponse> {
    return success(await this.service.sum(principalOf(req).store, body));
  }

  /**
   * Products by touchpoint: the purchases holding each product credited under the model to 1 to 3 of
   * channel, source, medium, campaign, landing_page, with the product's share of their value and its units
   * credited the same way. Default sort conversions desc. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('channel-list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async channelList(
    @Path('version') _version: string,
    @Body() body: ProductChannelRequest,
    @Request() req: ExpressRequest,
  ): Promise<ProductChannelListResponse> {
    return success(await this.service.channelList(principalOf(req).store, body));
  }

  /**
   * Views, add-to-carts, purchases, units and revenue of 1 to 20 products per day, week (from Monday) or
   * month; a period's `date` is its first day, clipped to start_date. Periods without activity are absent.
   * Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('trend')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async trend(
    @Path('version') _version: string,
    @Body() body: ProductTrendRequest,
    @Request() req: ExpressRequest,
  ): Promise<ProductTrendResponse> {
    return success(await this.service.trend(principalOf(req).store, body));
  }
}
