/**
 * Influencer links (docs/product.md, Tracking links and Analytics). Rate limit: 5 requests/s per key.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  InfluencerLinkListRequest,
  InfluencerLinkListResponse,
  InfluencerListRequest,
  InfluencerListResponse,
} from '../../../contracts/src/analytics';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { InfluencerService } from '../services/influencer.service';

@Route('{version}/api/get/influencer-analysis')
@Tags('Tracking links')
export class InfluencerController extends Controller {
  private readonly service: InfluencerService;

  constructor(services: ApiServices) {
    super();
    this.service = services.influencers;
  }

  /**
   * Per creator (links created with a `creator`) over [start_date, end_date): links, clicks, distinct
   * visitors from the links and those first seen there, and add-to-carts, purchases, their value and the
   * first-time customers' purchases credited to the links under the last-touch model. Default sort
   * purchase_conversion_value desc; ties by creator. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async list(
    @Path('version') _version: string,
    @Body() body: InfluencerListRequest,
    @Request() req: ExpressRequest,
  ): Promise<InfluencerListResponse> {
    return success(await this.service.list(principalOf(req).store, body));
  }

  /**
   * The link report of one creator's links (the shape of get/link-builder-analysis/list), newest first.
   * Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('link-list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async linkList(
    @Path('version') _version: string,
    @Body() body: InfluencerLinkListRequest,
    @Request() req: ExpressRequest,
  ): Promise<InfluencerLinkListResponse> {
    return success(await this.service.linkList(principalOf(req).store, body));
  }
}
