/**
 * Settings (docs/product.md, Settings): models, goals and connections. Empty bodies; 10 requests/s per key.
 */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  DestinationConnectionResponse,
  EmptyBody,
  SettingGoalsResponse,
  SettingModelsResponse,
  SourceConnectionResponse,
} from '../../../contracts/src/settings';
import { principalOf, success } from '../app/envelope';
import type { ApiServices } from '../app/services';
import type { ErrorBody } from '../app/errors';
import type { SettingsService } from '../services/settings.service';

@Route('{version}/api/get')
@Tags('Settings')
export class SettingsController extends Controller {
  private readonly service: SettingsService;

  constructor(services: ApiServices) {
    super();
    this.service = services.settings;
  }

  /**
   * The attribution models every report's `model` accepts, with the store's lookback window, the position
   * weights, the time-decay half-life and the default model (`last`).
   * @param _version API version: `v2-4-2`
   */
  @Post('setting-models')
  @Security('api_key', ['settings'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public settingModels(
    @Path('version') _version: string,
    @Body() _body: EmptyBody,
    @Request() req: ExpressRequest,
  ): Promise<SettingModelsResponse> {
    return this.service.models(principalOf(req).store).then(success);
  }

  /**
   * The four conversion goals every report's `goal` accepts, with the event that converts and the number of
   * conversions in the last 30 days.
   * @param _version API version: `v2-4-2`
   */
  @Post('setting-goals')
  @Security('api_key', ['settings'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async settingGoals(
    @Path('version') _version: string,
    @Body() _body: EmptyBody,
    @Request() req: ExpressRequest,
  ): Promise<SettingGoalsResponse> {
    return success(await this.service.goals(principalOf(req).store));
  }

  /**
   * What feeds the store, from what it received: the Shopify pixel (event ids starting `sh-`), the web snippet
   * and server events, the store pushes, and each ad platform account of the ad-spend pushes, with the latest
   * arrival and the count of the last 24 hours. Connected: something arrived in the last 7 days.
   * @param _version API version: `v2-4-2`
   */
  @Post('connection/source')
  @Security('api_key', ['settings'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async connectionSource(
    @Path('version') _version: string,
    @Body() _body: EmptyBody,
    @Request() req: ExpressRequest,
  ): Promise<SourceConnectionResponse> {
    return success(await this.service.sources(principalOf(req).store));
  }

  /**
   * The identity-event destinations the store feeds: which of the six events each receives, enabled or
   * disabled, the last successful delivery, whether it is failing now, and its dead letters awaiting redrive.
   * @param _version API version: `v2-4-2`
   */
  @Post('connection/destination')
  @Security('api_key', ['settings'])
  @Response<ErrorBody>(400, 'Invalid body; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async connectionDestination(
    @Path('version') _version: string,
    @Body() _body: EmptyBody,
    @Request() req: ExpressRequest,
  ): Promise<DestinationConnectionResponse> {
    return success(await this.service.destinations(principalOf(req).store));
  }
}
