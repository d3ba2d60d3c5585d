// People as the end-to-end tests need them: signed up by the password route
// (the mail's link token read through the internal route), admin of a new
// organisation with its catalog `lake`, holding a session; and their browser
// signing in when a page sends them to the login page first.
import type { Page } from 'playwright-core';
import { uniq, type TestOrg } from '../e2e/control-plane-helpers';
import { bearer, gateway, identity, stack } from '../e2e/helpers';

export interface PersonWithSession {
  email: string;
  password: string;
  access: string;
  principalId: string;
  org: TestOrg & { role: string };
  lake: string;
  project: string;
}

/** The password route's sign-up to its end: the mail's link token read through the internal route, the password set; the set's answer (a session). */
async function signUpWithPassword(email: string, fullName: string, orgName: string, handlePrefix: string, password: string) {
  expect((await gateway().post('/v1/auth/signup').send({ email, full_name: fullName, organization_name: orgName, handle: `${handlePrefix}-${uniq()}${uniq()}` })).status).toBe(202);
  const link = await identity().get(`/internal/login-tokens/${encodeURIComponent(email)}`).set(bearer(stack().bootstrap_secret));
  const set = await gateway().post('/v1/auth/password/set').send({ token: link.body.token, password });
  expect(set.status).toBe(200);
  return set;
}

/** A person with a password and a login session: admin of an organisation with `lake`. `prefix` names the address and handle. */
export async function personWithPassword(prefix: string, password: string): Promise<PersonWithSession> {
  const email = `${prefix}-${uniq()}${uniq()}@example.com`;
  const set = await signUpWithPassword(email, `${prefix} person`, `${prefix} org`, prefix, password);
  return {
    email, password, access: set.body.access_token as string, principalId: set.body.principal.principal_id as string,
    org: set.body.organization as TestOrg & { role: string }, lake: set.body.warehouse.warehouse_id as string, project: set.body.warehouse.project_id as string,
  };
}

/** Opens `address` signed out: the page sends the person to sign in, and back to `address`. */
export async function signInOnTheWay(page: Page, address: string, person: { email: string; password: string }): Promise<void> {
  await page.goto(address);
  await page.waitForURL(/\/app\/login\?return_to=/);
  await page.getByLabel('Email address').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(address);
}

/**
 * A person invited into `admin`'s organisation as a member, who then signs up
 * by the password route (the invitation applies by itself) and so signs in
 * with `password`; `prefix` names the address.
 */
export async function invitedMemberWithPassword(admin: PersonWithSession, prefix: string, password: string) {
  const email = `${prefix}-${uniq()}${uniq()}@example.com`;
  expect((await gateway().post(`/v1/orgs/${admin.org.org_id}/invitations`).set(bearer(admin.access)).send({ email, role: 'member' })).status).toBe(201);
  const set = await signUpWithPassword(email, `${prefix} member`, 'Ignored', 'ign', password);
  expect(set.body.organization).toMatchObject({ org_id: admin.org.org_id, role: 'member' });
  return { email, password, access: set.body.access_token as string, principalId: set.body.principal.principal_id as string };
}
