import { randomUUID } from 'node:crypto';
import { Op, type Sequelize } from 'sequelize';
import { Mail } from '../../models';
import { execute, selectRows, transactionOf, withTenant, type Db } from '../../connection';
import type { MailPurpose, MailState } from '../../../core/mail/mail';

// Every mail the service sends and where it stands: one row per logical mail, moved by the
// send itself and then by the provider's events, never backwards (mail_state_rank in the migration).
// Serves every workflow that mails (activities/mail/send-mail.ts), receiveEmailEvents and getMyEmailStatus,
// and requestMagicLink's and requestPasswordReset's count of re-sent links (activities/identity/mail-link.ts).
// The writes are raw SQL: each is ON CONFLICT or a state move ranked by the database's mail_state_rank
// (a conditional write that decides between the send and the provider's events); the reads are the model's.

export interface MailRef {
  /** The logical mail, e.g. `registration:<magicLinkId>`: a retried send reuses the row. */
  key: string;
  purpose: MailPurpose;
  to: string;
  provider: 'sendgrid' | 'outbox';
  /** The audit event whose deliveryState follows this mail. */
  audit?: { tenantId: string; eventId: string } | null;
}

/**
 * The row of a logical mail, created on its first send (state SENDING), and its link to an audit event.
 * Raw SQL: ON CONFLICT, so that a retried send reuses the row (and its link) instead of failing.
 */
export async function openMail(db: Sequelize, ref: MailRef): Promise<string> {
  const [row] = await selectRows<{ id: string }>(
    db,
    `INSERT INTO mail_messages (id, mail_key, purpose, to_address, provider)
     VALUES (:id, :key, :purpose, :to, :provider)
     ON CONFLICT (mail_key) DO UPDATE SET provider = EXCLUDED.provider
     RETURNING id`,
    { id: randomUUID(), key: ref.key, purpose: ref.purpose, to: ref.to.toLowerCase(), provider: ref.provider },
  );
  const mailId = row!.id;
  const audit = ref.audit;
  if (audit) {
    await withTenant(db, audit.tenantId, (tx) =>
      execute(
        tx,
        `INSERT INTO mail_audit_links (tenant_id, mail_message_id, audit_event_id) VALUES (:tenantId, :mailId, :eventId)
         ON CONFLICT (mail_message_id) DO NOTHING`,
        { tenantId: audit.tenantId, mailId, eventId: audit.eventId },
      ),
    );
  }
  return mailId;
}

/**
 * Records a mail about to be sent, inside the transaction that decided to send it, so that the next decision
 * (under the same lock) counts it; the send then finds the row (openMail reuses it) and moves it on.
 */
export async function reserveMail(db: Db, ref: Omit<MailRef, 'audit'>): Promise<void> {
  await execute(
    db,
    `INSERT INTO mail_messages (id, mail_key, purpose, to_address, provider) VALUES (:id, :key, :purpose, :to, :provider)
     ON CONFLICT (mail_key) DO NOTHING`,
    { id: randomUUID(), key: ref.key, purpose: ref.purpose, to: ref.to.toLowerCase(), provider: ref.provider },
  );
}

/** Where the mail of `key` stands, or null when there is none. */
export async function mailStateByKey(db: Db, key: string): Promise<MailState | null> {
  const mail = await Mail.findOne({ attributes: ['state'], where: { mailKey: key }, transaction: transactionOf(db) });
  return mail?.state ?? null;
}

/** Mails of `purpose` to an address since `since` whose key starts with `keyPrefix`. */
export async function countMailsSince(db: Db, input: { to: string; purpose: MailPurpose; keyPrefix: string; since: Date }): Promise<number> {
  return Mail.count({
    where: { toAddress: input.to.toLowerCase(), purpose: input.purpose, mailKey: { [Op.startsWith]: input.keyPrefix }, createdAt: { [Op.gt]: input.since } },
    transaction: transactionOf(db),
  });
}

/**
 * Moves each mail named by the given events to the furthest state among them, unless it is already
 * further (or as far and later). `events` is a SQL relation with mail_message_id, state, occurred_at, detail.
 */
const APPLY_STATES = (events: string) => `
  UPDATE mail_messages m SET state = b.state, state_at = b.occurred_at, detail = coalesce(b.detail, m.detail)
    FROM (SELECT DISTINCT ON (mail_message_id) mail_message_id, state, occurred_at, detail FROM ${events}
           WHERE mail_message_id IS NOT NULL
           ORDER BY mail_message_id, mail_state_rank(state) DESC, occurred_at DESC) b
   WHERE m.id = b.mail_message_id
     AND (mail_state_rank(b.state), b.occurred_at) > (mail_state_rank(m.state), m.state_at)`;

/**
 * The provider accepted the mail under `messageId`: SENT, and any of its events that arrived first (they
 * waited unmatched) are applied now.
 */
export async function recordMailSent(db: Sequelize, mailId: string, messageId: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    await execute(
      tx,
      `UPDATE mail_messages SET provider_message_id = :messageId, state = 'SENT', state_at = now(), detail = NULL
        WHERE id = :mailId AND mail_state_rank(state) < mail_state_rank('SENT')`,
      { mailId, messageId },
    );
    if (messageId === null) return;
    await execute(
      tx,
      `WITH bound AS (
         UPDATE mail_events SET mail_message_id = :mailId
          WHERE mail_message_id IS NULL
            AND (provider_message_id = :messageId OR left(provider_message_id, length(:messageId) + 1) = :messageId || '.')
          RETURNING mail_message_id, state, occurred_at, detail)
       ${APPLY_STATES('bound')}`,
      { mailId, messageId },
    );
  });
}

/** The provider refused the mail for good. */
export async function recordMailFailed(db: Db, mailId: string, detail: string): Promise<void> {
  await execute(
    db,
    `UPDATE mail_messages SET state = 'FAILED', state_at = now(), detail = :detail
      WHERE id = :mailId AND mail_state_rank(state) < mail_state_rank('FAILED')`,
    { mailId, detail: detail.slice(0, 500) },
  );
}

export interface ProviderEvent {
  eventId: string;
  /** As the provider sent it (SendGrid's sg_message_id: the X-Message-Id plus `.filter…` parts). */
  providerMessageId: string | null;
  event: string;
  state: MailState;
  occurredAt: Date;
  detail: string | null;
}

export interface EventsOutcome {
  /** Events seen for the first time (matched to a mail or waiting for it). */
  recorded: number;
  /** Events already received (the provider retries a batch it thinks failed). */
  duplicates: number;
  /** New events whose message id is not (yet) known. */
  unmatched: number;
}

/**
 * Records a batch of provider events in one statement: each event id once (a repeat changes nothing),
 * matched to its mail by message id, and each named mail moved to the furthest state among them.
 */
export async function recordProviderEvents(db: Sequelize, provider: 'sendgrid', events: ProviderEvent[]): Promise<EventsOutcome> {
  if (events.length === 0) return { recorded: 0, duplicates: 0, unmatched: 0 };
  return db.transaction(async (tx) => {
    const rows = await selectRows<{ recorded: string; unmatched: string }>(
      tx,
      `WITH incoming AS (
         SELECT * FROM unnest(ARRAY[:eventIds]::text[], ARRAY[:messageIds]::text[], ARRAY[:kinds]::text[], ARRAY[:states]::text[],
                              ARRAY[:times]::timestamptz[], ARRAY[:details]::text[])
                  AS i(event_id, provider_message_id, event, state, occurred_at, detail)
       ), inserted AS (
         INSERT INTO mail_events (provider, event_id, provider_message_id, mail_message_id, event, state, detail, occurred_at)
         SELECT :provider, i.event_id, i.provider_message_id,
                (SELECT m.id FROM mail_messages m
                  WHERE m.provider_message_id = ANY (
                    SELECT array_to_string((string_to_array(i.provider_message_id, '.'))[1:n], '.')
                      FROM generate_series(1, least(8, cardinality(string_to_array(i.provider_message_id, '.')))) n)
                  LIMIT 1),
                i.event, i.state, i.detail, i.occurred_at
           FROM incoming i
         ON CONFLICT (provider, event_id) DO NOTHING
         RETURNING mail_message_id, state, occurred_at, detail
       ), applied AS (${APPLY_STATES('inserted')})
       -- A data-modifying WITH runs to completion whether or not it is read.
       SELECT count(*) AS recorded, count(*) FILTER (WHERE mail_message_id IS NULL) AS unmatched FROM inserted`,
      {
        provider,
        eventIds: events.map((e) => e.eventId),
        messageIds: events.map((e) => e.providerMessageId),
        kinds: events.map((e) => e.event),
        states: events.map((e) => e.state),
        times: events.map((e) => e.occurredAt.toISOString()),
        details: events.map((e) => e.detail?.slice(0, 500) ?? null),
      },
    );
    const recorded = Number(rows[0]!.recorded);
    return { recorded, duplicates: events.length - recorded, unmatched: Number(rows[0]!.unmatched) };
  });
}

/** The newest mail to an address, and the newest one that says whether its mailbox takes mail. */
export async function mailsTo(
  db: Db,
  address: string,
): Promise<{ latest: { state: MailState; purpose: MailPurpose; stateAt: Date } | null; settled: MailState | null }> {
  const toAddress = address.toLowerCase();
  const transaction = transactionOf(db);
  const latest = await Mail.findOne({
    attributes: ['state', 'purpose', 'stateAt'],
    where: { toAddress },
    order: [['createdAt', 'DESC'], ['id', 'ASC']],
    transaction,
  });
  const settled = await Mail.findOne({
    attributes: ['state'],
    where: { toAddress, state: { [Op.in]: ['DELIVERED', 'BOUNCED', 'DROPPED', 'SPAM_REPORTED'] } },
    order: [['stateAt', 'DESC']],
    transaction,
  });
  return { latest: latest ? { state: latest.state, purpose: latest.purpose, stateAt: latest.stateAt } : null, settled: settled?.state ?? null };
}
