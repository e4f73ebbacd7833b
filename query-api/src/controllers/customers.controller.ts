/**
 * Customer listing (spec operation 6, docs/product.md, API conventions): `GET /{version}/api/customers` with a Bearer access token,
 * Shopify-like since_id paging and a `Link` header to the next page. Errors on this route are Shopify's
 * `{"errors": "<field>: <what is wrong>"}` (app.ts), not the reporting envelope.
 */
import type { Request as ExpressRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CustomersResponse, ShopifyErrorBody } from '../../../contracts/src/customers';
import { principalOf } from '../app/envelope';
import type { ApiServices } from '../app/services';
import { badRequest } from '../app/errors';
import { type CustomersService, DEFAULT_LIMIT, TIME_FILTERS, type TimeFilter } from '../services/customers.service';

/** The raw query value when it is one plain string (repeated parameters come as arrays). */
function rawQuery(req: ExpressRequest, name: string): string | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** `scheme://host` of the request (X-Forwarded-* only when API_TRUST_PROXY is on); empty when the host is odd. */
function baseUrl(req: ExpressRequest): string {
  const host = req.host;
  return host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? `${req.protocol}://${host}` : '';
}

@Route('{version}/api')
@Tags('Customers')
export class CustomersController extends Controller {
  private readonly service: CustomersService;

  constructor(services: ApiServices) {
    super();
    this.service = services.customers;
  }

  /**
   * Lists the store's customers (the customer pushes), ascending by id, Shopify-like. When there is a next
   * page the response carries `Link: <.../customers?limit=N&since_id=<last id>&...>; rel="next"` with the same
   * filters; on the last page there is no Link header. Rate limit: 10 requests per second per token (429 with
   * Retry-After).
   *
   * Ids are JSON numbers as in the spec, written with every digit even above 2^53 (`id`, `last_order_id`,
   * address ids): parse them as big integers to keep them exact. `admin_graphql_api_id`
   * (`gid://shopify/Customer/<id>`) carries the id as text too, and the Link header pages with the exact one. Timestamps are ISO 8601 in the store's UTC offset (e.g. `2026-03-01T23:30:00-05:00`).
   * Fields that were not pushed get Shopify's defaults; a customer without any address has a placeholder
   * `default_address` with id 0 and empty strings.
   *
   * @param version API version: `v2-4-2`
   * @param since_id Customers with an id greater than this, ascending; 0 (the default) for the first page.
   * @param limit Page size, 1 to 250, default 50.
   * @param created_at_min Created at or after this time: `YYYY-MM-DD HH:MM:SS` in the store time zone (an ISO 8601 timestamp with an offset is also accepted).
   * @param created_at_max Created at or before this time, same forms.
   * @param updated_at_min Updated at or after this time, same forms.
   * @param updated_at_max Updated at or before this time, same forms.
   * @isLong since_id must be an integer of at least 0
   * @minimum since_id 0 must be an integer of at least 0
   * @isInt limit must be an integer from 1 to 250
   * @minimum limit 1 must be an integer from 1 to 250
   * @maximum limit 250 must be an integer from 1 to 250
   */
  @Get('customers')
  @Security('access_token', ['customers'])
  @SuccessResponse(200, 'A page of customers; a Link header points to the next page when there is one')
  @Response<ShopifyErrorBody>(400, 'Invalid query parameter; the message names it')
  @Response<ShopifyErrorBody>(401, 'Missing, unknown or revoked access token')
  @Response<ShopifyErrorBody>(404, 'Unknown API version')
  @Response<ShopifyErrorBody>(429, 'More than 10 requests per second with this token; see Retry-After')
  public async listCustomers(
    @Path() version: string,
    @Request() req: ExpressRequest,
    @Query() since_id = 0,
    @Query() limit = DEFAULT_LIMIT,
    @Query() created_at_min?: string,
    @Query() created_at_max?: string,
    @Query() updated_at_min?: string,
    @Query() updated_at_max?: string,
  ): Promise<CustomersResponse> {
    if (rawQuery(req, 'page_info') !== undefined)
      throw badRequest('page_info', 'is not supported; page with since_id (follow the Link header)');
    const store = principalOf(req).store;
    // tsoa parsed since_id into a double; keep the exact digits so ids above 2^53 page exactly.
    const rawSince = rawQuery(req, 'since_id')?.trim();
    const sinceId = rawSince && /^\d+$/.test(rawSince) ? rawSince : String(since_id);
    const given: Record<TimeFilter, string | undefined> = {
      created_at_min,
      created_at_max,
      updated_at_min,
      updated_at_max,
    };
    const filters: Partial<Record<TimeFilter, string>> = {};
    for (const name of TIME_FILTERS) {
      const value = given[name];
      if (value !== undefined) filters[name] = value;
    }

    const page = await this.service.listCustomers(store, { sinceId, limit, filters });

    if (page.nextSinceId !== null) {
      const next = new URLSearchParams({ limit: String(limit), since_id: page.nextSinceId, ...filters });
      this.setHeader('Link', `<${baseUrl(req)}/${version}/api/customers?${next.toString()}>; rel="next"`);
    }
    return { customers: page.customers };
  }
}
