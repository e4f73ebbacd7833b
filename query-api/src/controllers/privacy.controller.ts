/** Privacy and data rights (docs/operations.md, Privacy): erase and export a person. The API key only. */
import type { Request as ExpressRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type {
  PrivacyEraseResponse,
  PrivacyExportResponse,
  PrivacySubjectRequest,
} from '../../../contracts/src/privacy';
import { principalOf, success } from '../app/envelope';
import type { ErrorBody } from '../app/errors';
import type { ApiServices } from '../app/services';
import type { PrivacyService } from '../services/privacy/privacy.service';

@Route('{version}/api/privacy')
@Tags('Privacy')
export class PrivacyController extends Controller {
  private readonly service: PrivacyService;

  constructor(services: ApiServices) {
    super();
    this.service = services.privacy;
  }

  /**
   * Erases a person, named by exactly one of `email`, `customer_id` or `client_id`: every client linked to it,
   * its raw events, facts, identity links, sessions, conversions and credits (the reports then equal a
   * recomputation without it), queued identity events, dead letters and its messages in the streams. Idempotent.
   * Answers the counts removed once the pipeline has erased it (`status: done`), or `pending` when no pipeline
   * worker answered within API_PRIVACY_WAIT_MS (it is then erased within a minute of one running). The audit
   * records when, by which key and the counts, never the identifiers. 5 requests/s per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('erase')
  @Security('api_key', ['privacy'])
  @Response<ErrorBody>(400, 'Not exactly one identifier, or an empty one; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(403, 'A dashboard key: it reads reports only')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  @Response<ErrorBody>(503, 'The erasure failed; send it again')
  public async erase(
    @Path('version') _version: string,
    @Body() body: PrivacySubjectRequest,
    @Request() req: ExpressRequest,
  ): Promise<PrivacyEraseResponse> {
    return success(await this.service.erase(principalOf(req), body));
  }

  /**
   * Everything stored about a person, named by exactly one of `email`, `customer_id` or `client_id`, as one
   * document: its identifiers, events (with the payload as received while the store keeps raw payloads), orders,
   * customer records and link clicks. The audit records the export. 5 requests/s per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('export')
  @Security('api_key', ['privacy'])
  @Response<ErrorBody>(400, 'Not exactly one identifier, or an empty one; the message names the field')
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(403, 'A dashboard key: it reads reports only')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public async export(
    @Path('version') _version: string,
    @Body() body: PrivacySubjectRequest,
    @Request() req: ExpressRequest,
  ): Promise<PrivacyExportResponse> {
    return success(await this.service.export(principalOf(req), body));
  }
}
