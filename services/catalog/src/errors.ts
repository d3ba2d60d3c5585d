import { HttpError } from '@floe/http';

// The catalog answers in the Iceberg REST error model:
// {error: {message, type, code}} where `type` names the Java exception an
// engine maps it to and `code` is the HTTP status; Floe adds `request_id`.

export type IcebergErrorType =
  | 'BadRequestException'
  | 'NotAuthorizedException'
  | 'ForbiddenException'
  | 'NoSuchWarehouseException'
  | 'NoSuchNamespaceException'
  | 'NoSuchTableException'
  | 'NoSuchViewException'
  | 'NoSuchPlanIdException'
  | 'NoSuchFunctionException'
  | 'NoSuchPlanTaskException'
  | 'AlreadyExistsException'
  | 'NamespaceNotEmptyException'
  | 'CommitFailedException'
  | 'CommitStateUnknownException'
  | 'NotImplementedException'
  | 'ServiceUnavailableException'
  | 'InternalServerError'
  | 'NotFoundException'
  | 'UnprocessableEntityException';

export class IcebergError extends HttpError<IcebergErrorType> {
  constructor(status: number, readonly type: IcebergErrorType, message: string) {
    super(status, type, message);
  }
}

export const badRequest = (m: string) => new IcebergError(400, 'BadRequestException', m);
export const notAuthorized = (m = 'a catalog token is required') => new IcebergError(401, 'NotAuthorizedException', m);
export const forbidden = (m: string) => new IcebergError(403, 'ForbiddenException', m);
export const noSuchNamespace = (ns: string[]) => new IcebergError(404, 'NoSuchNamespaceException', `Namespace does not exist: ${ns.join('.')}`);
export const noSuchTable = (ns: string[], name: string) => new IcebergError(404, 'NoSuchTableException', `Table does not exist: ${[...ns, name].join('.')}`);
export const alreadyExists = (what: string) => new IcebergError(409, 'AlreadyExistsException', `${what} already exists`);

/** Any failure as the Iceberg error model (also HttpErrors from shared middleware, e.g. 413, 404 routes). */
export function icebergErrorBody(err: HttpError<string>, requestId: string) {
  const type = err instanceof IcebergError ? err.type : typeForStatus(err.status);
  return { error: { message: err.message, type, code: err.status, request_id: requestId } };
}

function typeForStatus(status: number): IcebergErrorType {
  switch (status) {
    case 400: case 405: case 413: case 415: return 'BadRequestException';
    case 401: return 'NotAuthorizedException';
    case 403: return 'ForbiddenException';
    case 404: return 'NotFoundException';
    case 409: return 'CommitFailedException';
    case 422: return 'UnprocessableEntityException';
    case 501: return 'NotImplementedException';
    case 503: return 'ServiceUnavailableException';
    // Any other refusal of the request itself (408, 431 from the server's edge, …) is the client's.
    default: return status >= 400 && status < 500 ? 'BadRequestException' : 'InternalServerError';
  }
}
