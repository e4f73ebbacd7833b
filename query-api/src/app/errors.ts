/**
 * API errors (docs/product.md, API conventions): the HTTP status with `{code: <status>, message: "<field>: <what is wrong>", data: null}`.
 * Services throw ApiError; the error handler maps it, tsoa's ValidateError and body-parser errors.
 */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 413 | 415 | 429 | 500 | 503,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (field: string, what: string): ApiError => new ApiError(400, `${field}: ${what}`);
export const unauthorized = (field: string, what: string): ApiError => new ApiError(401, `${field}: ${what}`);
export const notFound = (field: string, what: string): ApiError => new ApiError(404, `${field}: ${what}`);
export const unavailable = (what: string): ApiError => new ApiError(503, `service: ${what}`);

export interface ErrorBody {
  /** @isInt */
  code: number;
  message: string;
  data: null;
}

export function errorBody(status: number, message: string): ErrorBody {
  return { code: status, message, data: null };
}
