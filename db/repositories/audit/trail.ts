import { selectRows, type Db } from '../../connection';

// The audit trail's reads. Serves listAuditEvents, listAuditActors and getAuditStatistics.
// Raw SQL: the trail's filters do their zone arithmetic in PostgreSQL (calendar days in an IANA zone),
// the actors and statistics are DISTINCT ON and FILTER aggregates, and the day and the zones are the
// database's clock and catalogue (no table of ours).

export interface AuditEventRow {
  id: string;
  action: string;
  category: string;
  actorDisplayName: string;
  actorMembershipId: string | null;
  systemActor: boolean;
  correlationId: string;
  subjectType: string;
  subjectId: string;
  occurredAt: Date;
  ipAddress: string | null;
  details: string;
  deliveryState: string;
}

export interface AuditEventFilter {
  subjectType?: string;
  action?: string;
  actorMembershipId?: string;
  subjectId?: string;
  correlationId?: string;
  systemActor?: boolean;
  /** Inclusive lower bound of occurred_at (ISO timestamp). */
  from?: string;
  /** Exclusive upper bound of occurred_at (ISO timestamp). */
  to?: string;
  /** Inclusive calendar days in `timezone`; PostgreSQL turns them into instants. */
  dateFrom?: string;
  dateTo?: string;
  timezone: string;
}

interface RawEvent {
  id: string;
  action: string;
  category: string;
  actor_display_name: string;
  actor_membership_id: string | null;
  system_actor: boolean;
  correlation_id: string;
  subject_type: string;
  subject_id: string;
  occurred_at: Date;
  ip_address: string | null;
  details: string;
  delivery_state: string;
}

function where(filter: AuditEventFilter): string {
  const clauses = ['tenant_id = :tenantId'];
  if (filter.subjectType !== undefined) clauses.push('subject_type = :subjectType');
  if (filter.action !== undefined) clauses.push('action = :action');
  if (filter.actorMembershipId !== undefined) clauses.push('actor_membership_id = :actorMembershipId');
  if (filter.subjectId !== undefined) clauses.push('subject_id = :subjectId');
  if (filter.correlationId !== undefined) clauses.push('correlation_id = :correlationId');
  if (filter.systemActor !== undefined) clauses.push('system_actor = :systemActor');
  if (filter.from !== undefined) clauses.push('occurred_at >= CAST(:from AS timestamptz)');
  if (filter.to !== undefined) clauses.push('occurred_at < CAST(:to AS timestamptz)');
  // Local midnight of the first day, up to (not including) local midnight after the last day.
  if (filter.dateFrom !== undefined) clauses.push('occurred_at >= (CAST(:dateFrom AS date)::timestamp AT TIME ZONE :timezone)');
  if (filter.dateTo !== undefined) clauses.push("occurred_at < ((CAST(:dateTo AS date) + 1)::timestamp AT TIME ZONE :timezone)");
  return clauses.join(' AND ');
}

export async function auditEventPage(
  tx: Db,
  scope: { tenantId: string },
  filter: AuditEventFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: AuditEventRow[]; total: number }> {
  const replacements = { ...scope, ...filter, ...page };
  const rows = await selectRows<RawEvent>(
    tx,
    `SELECT id, action, category, actor_display_name, actor_membership_id, system_actor, correlation_id, subject_type,
            subject_id, occurred_at, ip_address, details, delivery_state
       FROM audit_events WHERE ${where(filter)}
      ORDER BY occurred_at DESC, id DESC LIMIT :limit OFFSET :offset`,
    replacements,
  );
  const [{ total }] = (await selectRows<{ total: string }>(tx, `SELECT count(*) AS total FROM audit_events WHERE ${where(filter)}`, replacements)) as [{ total: string }];
  return {
    rows: rows.map((r) => ({
      id: r.id,
      action: r.action,
      category: r.category,
      actorDisplayName: r.actor_display_name,
      actorMembershipId: r.actor_membership_id,
      systemActor: r.system_actor,
      correlationId: r.correlation_id,
      subjectType: r.subject_type,
      subjectId: r.subject_id,
      occurredAt: new Date(r.occurred_at),
      ipAddress: r.ip_address,
      details: r.details,
      deliveryState: r.delivery_state,
    })),
    total: Number(total),
  };
}

/** Distinct human actors of the tenant's events, each with the display name of its newest event. */
export async function auditActorPage(
  tx: Db,
  scope: { tenantId: string },
  query: { q: string; limit: number; offset: number },
): Promise<{ rows: Array<{ membershipId: string; displayName: string }>; total: number }> {
  const actors = `
    WITH actors AS (
      SELECT DISTINCT ON (actor_membership_id) actor_membership_id, actor_display_name
        FROM audit_events
       WHERE tenant_id = :tenantId AND actor_membership_id IS NOT NULL
       ORDER BY actor_membership_id, occurred_at DESC, id DESC
    )`;
  const filter = `WHERE :q = '' OR strpos(lower(actor_display_name), lower(:q)) > 0`;
  const replacements = { ...scope, ...query };
  const rows = await selectRows<{ actor_membership_id: string; actor_display_name: string }>(
    tx,
    `${actors} SELECT * FROM actors ${filter}
      ORDER BY actor_display_name COLLATE "C", actor_membership_id LIMIT :limit OFFSET :offset`,
    replacements,
  );
  const [{ total }] = (await selectRows<{ total: string }>(tx, `${actors} SELECT count(*) AS total FROM actors ${filter}`, replacements)) as [{ total: string }];
  return { rows: rows.map((r) => ({ membershipId: r.actor_membership_id, displayName: r.actor_display_name })), total: Number(total) };
}

/** Counts of one local calendar day's events, bucketed by the catalogue's kind of each action. */
export async function countAuditEventsOfDay(
  tx: Db,
  scope: { tenantId: string },
  day: { date: string; timezone: string },
  kinds: { created: string[]; updated: string[]; deleted: string[] },
): Promise<{ total: number; created: number; updated: number; deleted: number }> {
  const [row] = await selectRows<{ total: string; created: string; updated: string; deleted: string }>(
    tx,
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE action = ANY(CAST(:created AS text[]))) AS created,
            count(*) FILTER (WHERE action = ANY(CAST(:updated AS text[]))) AS updated,
            count(*) FILTER (WHERE action = ANY(CAST(:deleted AS text[]))) AS deleted
       FROM audit_events
      WHERE tenant_id = :tenantId
        AND occurred_at >= (CAST(:date AS date)::timestamp AT TIME ZONE :timezone)
        AND occurred_at < ((CAST(:date AS date) + 1)::timestamp AT TIME ZONE :timezone)`,
    { ...scope, ...day, created: `{${kinds.created.join(',')}}`, updated: `{${kinds.updated.join(',')}}`, deleted: `{${kinds.deleted.join(',')}}` },
  );
  return { total: Number(row!.total), created: Number(row!.created), updated: Number(row!.updated), deleted: Number(row!.deleted) };
}

/** Today's date in the zone, by the database clock (the clock occurred_at comes from). */
export async function todayIn(tx: Db, timezone: string): Promise<string> {
  const [row] = await selectRows<{ today: string }>(tx, `SELECT to_char((now() AT TIME ZONE :timezone)::date, 'YYYY-MM-DD') AS today`, { timezone });
  return row!.today;
}

/** Every zone name PostgreSQL knows (pg_timezone_names), for validating a client's IANA zone. */
export async function knownTimezones(db: Db): Promise<Set<string>> {
  const rows = await selectRows<{ name: string }>(db, 'SELECT name FROM pg_timezone_names');
  return new Set(rows.map((r) => r.name));
}
