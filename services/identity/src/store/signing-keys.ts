import type { Db, PrismaClient, Prisma } from '@floe/db';

// Signing key rows. Key changes (the first key, a rotation) run one at a time
// across replicas and the rotation command, under a transaction-scoped lock.

const LOCK_ID = 4_627_001;

/** Runs `work` in a transaction holding the signing keys' lock (released at its end, whatever the connection). */
export function underSigningKeyLock<T>(prisma: PrismaClient, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    // Raw: Prisma has no advisory locks.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_ID})`;
    return work(tx);
  }, { maxWait: 10_000, timeout: 30_000 });
}

/** `privateJwk` already sealed with the deployment's data key. */
export async function insertSigningKey(db: Db, k: { kid: string; publicJwk: object; privateJwk: string }): Promise<void> {
  await db.signingKey.create({ data: { kid: k.kid, alg: 'RS256', publicJwk: k.publicJwk, privateJwk: k.privateJwk } });
}

/** Retires every signing key but `kid`; each stays published for `overlapSeconds`. */
export function retireAllBut(db: Db, kid: string, overlapSeconds: number): Promise<Array<{ kid: string; publish_until: Date }>> {
  // Raw: the publish window is the database's clock, as the verifiers' query reads it.
  return db.$queryRaw`
    UPDATE signing_keys SET retired_at = now(), publish_until = now() + make_interval(secs => ${overlapSeconds})
     WHERE retired_at IS NULL AND kid <> ${kid} RETURNING kid, publish_until`;
}
