/** What every controller needs from a request and gives back: the caller's principal and the success envelope. */
import type { Request } from 'express';
import type { Principal } from './context';

/** The authenticated caller: tsoa's security hook put it on the request (authentication.ts). */
export function principalOf(req: Request): Principal {
  return req.user as Principal;
}

/** `{code: 1, message: "success", data}` (docs/product.md, API conventions). */
export function success<T>(data: T): { code: 1; message: 'success'; data: T } {
  return { code: 1, message: 'success', data };
}
