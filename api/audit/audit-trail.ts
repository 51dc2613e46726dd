import type { Sequelize } from 'sequelize';
import { withTenant } from '../../db/connection';
import {
  auditActorPage,
  auditEventPage,
  countAuditEventsOfDay,
  knownTimezones,
  todayIn,
  type AuditEventFilter,
  type AuditEventRow,
} from '../../db/repositories/audit/trail';
import { AUDIT_ACTIONS, type AuditAction, type AuditActionKind } from '../../core/audit/audit-actions';
import { AppError } from '../../core/shared/problems';
import { isCalendarDate, isInstant } from '../../core/shared/calendar';
import type { Principal } from '../http/context';
import type { Schemas } from '../http/operation-handler';
import { pageOf } from '../http/pages';

const DEFAULT_AUDIT_TIMEZONE = 'Asia/Tashkent';

export interface AuditEventQuery extends Omit<AuditEventFilter, 'timezone'> {
  timezone?: string;
  page: number;
  size: number;
}

function invalid(path: string, message: string): AppError {
  return new AppError('validation', `${path} ${message}`, { errors: [{ path, message }] });
}

function catalogueEntry(action: string) {
  return (AUDIT_ACTIONS as Record<string, (typeof AUDIT_ACTIONS)[AuditAction] | undefined>)[action];
}

function toAuditEvent(row: AuditEventRow): Schemas['AuditEvent'] {
  return {
    id: row.id,
    action: row.action,
    actionLabel: catalogueEntry(row.action)?.label ?? row.action,
    category: row.category,
    actorDisplayName: row.actorDisplayName,
    actorMembershipId: row.actorMembershipId,
    systemActor: row.systemActor,
    correlationId: row.correlationId,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    occurredAt: row.occurredAt.toISOString(),
    ipAddress: row.ipAddress,
    details: row.details,
    deliveryState: row.deliveryState,
  };
}

function actionsOfKind(kind: AuditActionKind): string[] {
  return Object.entries(AUDIT_ACTIONS)
    .filter(([, entry]) => entry.kind === kind)
    .map(([code]) => code);
}

/** The workspace's audit trail: events, actors, the action catalogue and daily statistics. */
export function createAuditTrail({ db }: { db: Sequelize }) {
  // PostgreSQL does the zone arithmetic, so a zone is valid when PostgreSQL knows it (loaded once).
  let zones: Promise<Set<string>> | null = null;
  async function requireTimezone(timezone: string | undefined): Promise<string> {
    const zone = timezone ?? DEFAULT_AUDIT_TIMEZONE;
    zones ??= knownTimezones(db).catch((err: unknown) => {
      zones = null;
      throw err;
    });
    if (!(await zones).has(zone)) throw invalid('/query/timezone', 'must be an IANA time zone name, e.g. Asia/Tashkent');
    return zone;
  }

  async function listAuditEvents(principal: Principal, query: AuditEventQuery): Promise<Schemas['AuditEventPage']> {
    const { page, size, timezone, ...filter } = query;
    for (const name of ['from', 'to'] as const) {
      if (filter[name] !== undefined && !isInstant(filter[name])) throw invalid(`/query/${name}`, 'must be a date-time that exists');
    }
    for (const name of ['dateFrom', 'dateTo'] as const) {
      if (filter[name] !== undefined && !isCalendarDate(filter[name])) throw invalid(`/query/${name}`, 'must be a date that exists');
    }
    const calendar = filter.dateFrom !== undefined || filter.dateTo !== undefined;
    if (calendar && (filter.from !== undefined || filter.to !== undefined)) {
      throw invalid('/query', 'dateFrom and dateTo cannot be combined with from and to');
    }
    if (filter.dateFrom !== undefined && filter.dateTo !== undefined && filter.dateFrom > filter.dateTo) {
      throw invalid('/query/dateTo', 'must not be before dateFrom');
    }
    const zone = await requireTimezone(timezone);
    const { rows, total } = await withTenant(db, principal.tenantId, (tx) =>
      auditEventPage(tx, { tenantId: principal.tenantId }, { ...filter, timezone: zone }, { limit: size, offset: page * size }),
    );
    return pageOf(rows.map(toAuditEvent), { page, size }, total);
  }

  async function listAuditActors(principal: Principal, query: { q: string; page: number; size: number }): Promise<Schemas['AuditActorPage']> {
    const { rows, total } = await withTenant(db, principal.tenantId, (tx) =>
      auditActorPage(tx, { tenantId: principal.tenantId }, { q: query.q, limit: query.size, offset: query.page * query.size }),
    );
    return pageOf(rows, query, total);
  }

  function listAuditActions(): Schemas['AuditActionOption'][] {
    return Object.entries(AUDIT_ACTIONS)
      .map(([code, entry]) => ({ category: entry.category, code, label: entry.label }))
      .sort((a, b) => (a.category === b.category ? (a.code < b.code ? -1 : 1) : a.category < b.category ? -1 : 1));
  }

  async function getAuditStatistics(principal: Principal, query: { date?: string; timezone?: string }): Promise<Schemas['AuditStatistics']> {
    if (query.date !== undefined && !isCalendarDate(query.date)) throw invalid('/query/date', 'must be a date that exists');
    const zone = await requireTimezone(query.timezone);
    return withTenant(db, principal.tenantId, async (tx) => {
      const date = query.date ?? (await todayIn(tx, zone));
      const counts = await countAuditEventsOfDay(tx, { tenantId: principal.tenantId }, { date, timezone: zone }, {
        created: actionsOfKind('CREATE'),
        updated: actionsOfKind('UPDATE'),
        deleted: actionsOfKind('DELETE'),
      });
      return {
        date,
        timezone: zone,
        totalActions: counts.total,
        createdRecords: counts.created,
        updatedRecords: counts.updated,
        deletedRecords: counts.deleted,
        otherActions: counts.total - counts.created - counts.updated - counts.deleted,
      };
    });
  }

  return { listAuditEvents, listAuditActors, listAuditActions, getAuditStatistics };
}
