/**
 * The event summary of a landing page (docs/product.md, Analytics). Rate limit: 5 requests/s per key.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { LandingPageSummaryRequest, LandingPageSummaryResponse } from '../../../contracts/src/analytics';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { LandingPageService } from '../services/landing-page.service';

@Route('{version}/api/get/landing-page')
@Tags('Web analytics')
export class LandingPageController extends Controller {
  private readonly service: LandingPageService;

  constructor(services: ApiServices) {
    super();
    this.service = services.landingPage;
  }

  /**
   * Within the sessions that landed on `landing_page` (a path; a trailing `*` matches a prefix) over
   * [start_date, end_date), optionally only those with the given channel, source, medium or campaign: the
   * distinct visitors, the sessions, and for every event kind the distinct persons who sent one, the count,
   * and users / visitors. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('event-summary')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async eventSummary(
    @Path('version') _version: string,
    @Body() body: LandingPageSummaryRequest,
    @Request() req: ExpressRequest,
  ): Promise<LandingPageSummaryResponse> {
    return success(await this.service.summary(principalOf(req).store, body));
  }
}
