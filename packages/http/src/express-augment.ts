// Fields Floe's middleware adds to every Express request.
import type { Caller } from './caller';

declare global {
  namespace Express {
    interface Request {
      /** Set by the request-id middleware on every request. */
      requestId: string;
      /** Set by packages/auth once the credential is resolved. */
      caller?: Caller;
    }
  }
}

export {};
