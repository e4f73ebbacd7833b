/**
 * The ad report and its drill-downs (docs/product.md, Ads attribution); 5 requests/s per key, like get-list.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  AdAnalysisListRequest,
  AdAnalysisListResponse,
  AdAnalysisSumRequest,
  AdAnalysisSumResponse,
  AdCustomerListRequest,
  AdCustomerListResponse,
  CampaignOrderListRequest,
  CampaignOrderListResponse,
} from '../../../contracts/src/ads';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { AdAnalysisService } from '../services/ad-analysis.service';

@Route('{version}/api')
@Tags('Ads attribution')
export class AdAnalysisController extends Controller {
  private readonly service: AdAnalysisService;

  constructor(services: ApiServices) {
    super();
    this.service = services.adAnalysis;
  }

  /**
   * Ad report, paged: the attribution of paid touchpoints (platform not "") under the model over
   * [start_date, end_date) in the store time zone, grouped by 1 to 4 of channel, platform, campaign, ad_set, ad
   * (`ad_name` is an alias of `ad`), with the ad spend of the same platform and ids joined (on the campaign name
   * where a touchpoint carries no campaign id). Names come from the ad-spend rows; without one the campaign is
   * the touchpoint's campaign and the ad set and ad are "". `filters` (all must hold) select rows by dimension
   * or id. Records carry the fourteen numbers of get-list plus ctr and cvr; dimensions and ids not requested
   * are "". Sorting and paging as get-list. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('get/ad-analysis/list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async adList(
    @Path('version') _version: string,
    @Body() body: AdAnalysisListRequest,
    @Request() req: ExpressRequest,
  ): Promise<AdAnalysisListResponse> {
    return success(await this.service.list(principalOf(req).store, body));
  }

  /**
   * The numbers of the ad report over the same body: the additive ones summed over every row, the ratios
   * computed from those sums. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('get/ad-analysis/list-sum')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async adListSum(
    @Path('version') _version: string,
    @Body() body: AdAnalysisSumRequest,
    @Request() req: ExpressRequest,
  ): Promise<AdAnalysisSumResponse> {
    return success(await this.service.sum(principalOf(req).store, body));
  }

  /**
   * The converting customers behind the ad report rows that `filters` select (normally one row), newest
   * first: the credit the model gives those rows, the credited and the whole conversion value, and the
   * conversion's first and last touchpoints. Their credits and values add up to the row's conversions and
   * conversion_value. Page from 1, page_size 1 to 100 (default 20). Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('get/ad-analysis/customer-list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async adCustomerList(
    @Path('version') _version: string,
    @Body() body: AdCustomerListRequest,
    @Request() req: ExpressRequest,
  ): Promise<AdCustomerListResponse> {
    return success(await this.service.customers(principalOf(req).store, body));
  }

  /**
   * The orders (conversions of the goal, default purchase) credited to a campaign under the model (default
   * last) over [start_date, end_date), newest first. `campaign`, `channel`, `source`, `medium` and `platform`
   * match the touchpoint as get-list shows it (compared lower-cased). Page from 1, page_size 1 to 100
   * (default 20). Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('order/campaign-list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async campaignOrderList(
    @Path('version') _version: string,
    @Body() body: CampaignOrderListRequest,
    @Request() req: ExpressRequest,
  ): Promise<CampaignOrderListResponse> {
    return success(await this.service.campaignOrders(principalOf(req).store, body));
  }
}
