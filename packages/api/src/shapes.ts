import { z } from 'zod';

// Small shapes every resource uses, each with one meaning.

/** A time as the API writes it: ISO 8601 in UTC with milliseconds (`2026-11-27T20:45:04.000Z`). */
export const IsoTime = z.iso.datetime().meta({ id: 'IsoTime' });

/** An id Floe made (`key_…`, `org_…`, a uuid): opaque. */
export const Id = z.string().min(1);

/**
 * `true` only when two unions hold the same members: where the document spells
 * a list another package owns (which @floe/api cannot import), the route that
 * parses with it asserts `const same: SameMembers<Ours, Theirs> = true`, so
 * either list changing alone fails to compile.
 */
export type SameMembers<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The engines a connection recipe is written for (@floe/catalogs' ENGINES, held equal by the onboarding route). */
export const ONBOARDING_ENGINES = ['duckdb', 'pyiceberg', 'spark', 'snowflake'] as const;

/** The connection of the onboarded catalog `lake`: its recipe once ready, when to ask again while it provisions; null when there is no `lake`. */
export const OnboardingConnection = z.discriminatedUnion('state', [
  z.object({
    state: z.literal('ready'),
    warehouse_id: Id,
    warehouse: z.string(),
    engine: z.enum(ONBOARDING_ENGINES),
    level: z.enum(['read', 'write']),
    catalog_uri: z.string(),
    warehouse_param: z.string(),
    catalog_credential: z.object({ client_id: z.string(), client_secret: z.string() }),
    s3: z.object({ endpoint: z.string(), region: z.string(), path_style: z.literal(true) }),
    recipe: z.string(),
    note: z.string(),
  }),
  z.object({
    state: z.literal('provisioning'), warehouse_id: Id, warehouse: z.string(), retry_after_seconds: z.int(), note: z.string(),
  }),
]).nullable().meta({ id: 'OnboardingConnection' });
