import type request from 'supertest';
import { catalogRequest } from '../support/openapi';
import { stack } from './helpers';

/** supertest against the catalog; every response is validated against the OpenAPI document. */
export const catalog = () => catalogRequest(stack().catalog_url);

/** A catalog token for a catalog credential, as Spark sends the exchange (form, any scope). */
export async function token(clientId: string, clientSecret: string): Promise<string> {
  const res = await catalog().post('/v1/oauth/tokens').type('form')
    .send({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'PRINCIPAL_ROLE:ALL' });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

/** Asserts an Iceberg error: status, exception type, code, message, and the request id of the response. */
export function icebergError(res: request.Response, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ type, code: status, message: expect.any(String), request_id: res.headers['x-request-id'] });
}
