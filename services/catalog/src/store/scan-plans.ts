import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// The state a scan plan holds between requests (the REST document: "responses
// that include a plan-id indicate that the service is holding state"), in
// Redis so that any catalog replica answers for it: the plan's record (whose
// table, its status, its pages, the prefix its credentials are vended for)
// and one key per page of file scan tasks. Everything lasts PLAN_TTL_SECONDS
// and goes sooner when the plan is cancelled. A status moves only from
// `submitted`, by compare-and-set, so a plan cancelled while it is being
// planned stays cancelled.

export const PLAN_TTL_SECONDS = 3600;

export type PlanStatus = 'submitted' | 'completed' | 'failed' | 'cancelled';

export interface PlanRecord {
  warehouseId: string;
  tableId: string;
  status: PlanStatus;
  /** When planning began (ms): a plan still `submitted` long after is reported failed. */
  startedAt: number;
  /** Completed: how many pages of tasks; page 0 is answered inline when it is the only one. */
  pages?: number;
  /** Completed: the common prefix of the planned files, for vended credentials; absent when nothing was planned. */
  prefix?: string;
  /** Failed: the Iceberg error the planning ended with. */
  error?: { code: number; type: string; message: string };
}

// Moves a record's status from `submitted` only; answers 1 when it moved.
const MOVE_FROM_SUBMITTED = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current).status ~= 'submitted' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`;

export class ScanPlans {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private recordKey = (planId: string) => `${this.prefix}scan-plan:${planId}`;
  private pageKey = (planId: string, page: number) => `${this.prefix}scan-plan:${planId}:page:${page}`;

  /** A new plan, `submitted`: its id and record. */
  async create(warehouseId: string, tableId: string): Promise<{ planId: string; record: PlanRecord }> {
    const planId = randomUUID();
    const record: PlanRecord = { warehouseId, tableId, status: 'submitted', startedAt: Date.now() };
    await this.redis.set(this.recordKey(planId), JSON.stringify(record), 'EX', PLAN_TTL_SECONDS);
    return { planId, record };
  }

  async get(planId: string): Promise<PlanRecord | null> {
    const text = await this.redis.get(this.recordKey(planId));
    return text ? (JSON.parse(text) as PlanRecord) : null;
  }

  /** Stores the pages (each a ScanTasks JSON text), then marks the plan completed; false when it was cancelled meanwhile (the pages go again). */
  async complete(planId: string, record: PlanRecord, pages: string[], prefix: string | undefined): Promise<boolean> {
    if (pages.length) {
      const m = this.redis.multi();
      pages.forEach((p, i) => m.set(this.pageKey(planId, i), p, 'EX', PLAN_TTL_SECONDS));
      await m.exec();
    }
    const done: PlanRecord = { ...record, status: 'completed', pages: pages.length, ...(prefix ? { prefix } : {}) };
    if (await this.moveFromSubmitted(planId, done)) return true;
    await this.dropPages(planId, pages.length);
    return false;
  }

  /** Marks a submitted plan failed with its error; false when it was no longer submitted. */
  fail(planId: string, record: PlanRecord, error: NonNullable<PlanRecord['error']>): Promise<boolean> {
    return this.moveFromSubmitted(planId, { ...record, status: 'failed', error });
  }

  /** Cancels the plan and lets its pages go; a completed plan's pages go too (the client said it needs no more). */
  async cancel(planId: string, record: PlanRecord): Promise<void> {
    const cancelled: PlanRecord = { warehouseId: record.warehouseId, tableId: record.tableId, status: 'cancelled', startedAt: record.startedAt };
    await this.redis.set(this.recordKey(planId), JSON.stringify(cancelled), 'KEEPTTL');
    await this.dropPages(planId, record.pages ?? 0);
  }

  /** One page of a completed plan; null once it has gone. */
  page(planId: string, page: number): Promise<string | null> {
    return this.redis.get(this.pageKey(planId, page));
  }

  private async moveFromSubmitted(planId: string, next: PlanRecord): Promise<boolean> {
    return (await this.redis.eval(MOVE_FROM_SUBMITTED, 1, this.recordKey(planId), JSON.stringify(next))) === 1;
  }

  private async dropPages(planId: string, pages: number): Promise<void> {
    if (pages) await this.redis.del(...Array.from({ length: pages }, (_, i) => this.pageKey(planId, i)));
  }
}
