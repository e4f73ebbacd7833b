/**
 * Tracking links (docs/product.md, Tracking links): the link builder, the link report (spec operation 5), and the short-link
 * redirect listener `GET /<code>` that records the click through the stream.
 */
import type { Request as ExpressRequest } from 'express';
import {
  Body,
  Controller,
  Get,
  Hidden,
  Path,
  Post,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type {
  LinkAnalysisRequest,
  LinkAnalysisResponse,
  LinkCreateRequest,
  LinkCreateResponse,
} from '../../../contracts/src/reports';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import { notFound } from '../app/errors';
import { type LinkService } from '../services/link.service';

@Route('')
@Tags('Tracking links')
export class LinksController extends Controller {
  private readonly service: LinkService;

  constructor(services: ApiServices) {
    super();
    this.service = services.links;
  }

  /**
   * Creates a tracking link: `https://{SHORT_LINK_HOST}/<code>` redirects to the landing page with the
   * utm parameters and `ab_lnk=<code>` added; sessions that land through it carry the link's campaign,
   * source and medium. 10 requests/s per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('{version}/api/link-builder/create')
  @Security('api_key', ['link_builder'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async createLink(
    @Path('version') _version: string,
    @Body() body: LinkCreateRequest,
    @Request() req: ExpressRequest,
  ): Promise<LinkCreateResponse> {
    return success(await this.service.create(principalOf(req).store, body));
  }

  /**
   * Click and conversion statistics of the store's tracking links over [start_date, end_date) in store
   * time: clicks; total_users and new_users (distinct visitors with a session from the link, and those
   * first seen in it); purchase and add_to_cart with their values under the last-touch model;
   * collection_view and search_submit events in sessions from the link. Newest links first.
   * 5 requests/s per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('{version}/api/get/link-builder-analysis/list')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async linkAnalysis(
    @Path('version') _version: string,
    @Body() body: LinkAnalysisRequest,
    @Request() req: ExpressRequest,
  ): Promise<LinkAnalysisResponse> {
    return success(await this.service.analysis(principalOf(req).store, body));
  }

  /** Short-link redirect (served on SHORT_LINK_HOST): 302 to the landing page; unknown code 404. */
  @Get('{code}')
  @Hidden()
  @SuccessResponse(302, 'Redirect to the landing page')
  public async redirect(@Path() code: string, @Request() req: ExpressRequest): Promise<void> {
    const cookie = /(?:^|;\s*)_shopify_y=([^;]+)/.exec(req.headers.cookie ?? '');
    const target = await this.service.click(code, {
      ip: req.ip ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      referrer: req.headers.referer ?? '',
      clientId: cookie?.[1] ?? '',
    });
    if (!target) throw notFound('code', `no tracking link ${code}`);
    this.setStatus(302);
    this.setHeader('Location', target);
    this.setHeader('Cache-Control', 'no-store');
  }
}
