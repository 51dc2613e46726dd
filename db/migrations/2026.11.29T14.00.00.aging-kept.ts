import type { MigrationContext } from './context';

// The aging as last built, kept per company and side, and the counterparties changed since (getAgingReport).
//
// An aging reads every open item of the side (100,000 invoices of 5,000 customers: a hash aggregate of some
// 120,000 items), while the trial balance reads a few hundred day totals. The report's rows are kept instead:
//
// - `aging_snapshots`: per company and side, the date of the kept aging, the snapshot (`pg_current_snapshot()`)
//   of the statement that built it, and its build. Every transaction whose effects that statement saw is in
//   the kept rows; every other one is not.
// - `aging_kept_rows`: the build's rows, one per counterparty and currency (the report's columns with the
//   counterparty's name and TIN, and the number of invoices past due with something owed, for the overview).
// - `aging_marks`: per company, each counterparty whose settlement or advance lines changed (4010, 6010, 6310,
//   4310: every invoice, payment, allocation and cancellation posts to one of them, with its counterparty;
//   lines without one count as the null counterparty), with the last transaction that wrote such a line
//   (`pg_current_xact_id()`). A statement trigger on journal_lines writes it in the writer's transaction. A
//   counterparty is changed since a build when its mark's transaction is not visible in the build's snapshot;
//   the mark keeps only the latest transaction, which is enough: the row is locked until that transaction ends,
//   so an earlier writer of the row had committed before the latest one wrote it, and is visible wherever the
//   latest is. Postings of a company already wait for each other on its ledger row, so the mark's row adds no
//   wait of its own. A counterparty's new name or TIN marks it too (a row trigger on counterparties), so a kept
//   row never shows an old name.
//
// A reader of the kept aging takes the kept rows of the counterparties not changed since and computes the
// changed ones from the documents, in one snapshot. Builds of a company take a transaction-scoped advisory
// lock before their statement, so they follow each other and each sees what the one before saw; a build
// deletes the marks that its snapshot and every other side's kept snapshot see (the marks no reader needs).
// The function is the definer's: the application reads the marks, deletes them in a build, and cannot write
// them.

/** The settlement and advance accounts of both sides (core/invoices' DEFAULT_DOCUMENT_ACCOUNTS; a test pins them equal). */
export const AGING_ACCOUNTS = ['4010', '6010', '6310', '4310'];

export async function up({ sql, appRole, definerRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE SEQUENCE aging_builds;
    CREATE TABLE aging_snapshots (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      side text NOT NULL CHECK (side IN ('RECEIVABLE', 'PAYABLE')),
      as_of date NOT NULL,
      snapshot pg_snapshot NOT NULL,
      build_id bigint NOT NULL,
      built_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, legal_entity_id, side),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );
    CREATE TABLE aging_kept_rows (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      side text NOT NULL,
      build_id bigint NOT NULL,
      counterparty_id uuid,
      name text,
      tin text,
      currency text NOT NULL,
      not_due numeric NOT NULL,
      days_1_to_30 numeric NOT NULL,
      days_31_to_60 numeric NOT NULL,
      days_61_to_90 numeric NOT NULL,
      over_90 numeric NOT NULL,
      outstanding numeric NOT NULL,
      advances numeric NOT NULL,
      overdue_invoices bigint NOT NULL,
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );
    CREATE UNIQUE INDEX aging_kept_rows_key ON aging_kept_rows (tenant_id, legal_entity_id, side, build_id, counterparty_id, currency) NULLS NOT DISTINCT;
    CREATE TABLE aging_marks (
      tenant_id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      counterparty_id uuid,
      xid xid8 NOT NULL,
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id)
    );
    CREATE UNIQUE INDEX aging_marks_key ON aging_marks (tenant_id, legal_entity_id, counterparty_id) NULLS NOT DISTINCT;

    CREATE FUNCTION journal_lines_mark_aging() RETURNS trigger
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
      INSERT INTO aging_marks AS m (tenant_id, legal_entity_id, counterparty_id, xid)
      SELECT DISTINCT a.tenant_id, a.legal_entity_id, a.counterparty_id, pg_current_xact_id()
        FROM added a WHERE a.account_code IN (${AGING_ACCOUNTS.map((code) => `'${code}'`).join(', ')})
      ON CONFLICT (tenant_id, legal_entity_id, counterparty_id) DO UPDATE SET xid = excluded.xid WHERE m.xid <> excluded.xid;
      RETURN NULL;
    END $$;
    GRANT SELECT, INSERT, UPDATE ON aging_marks TO ${definerRole};
    ALTER FUNCTION journal_lines_mark_aging() OWNER TO ${definerRole};
    CREATE TRIGGER journal_lines_aging_marks AFTER INSERT ON journal_lines
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_mark_aging();

    CREATE FUNCTION counterparties_mark_aging() RETURNS trigger
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
      INSERT INTO aging_marks AS m (tenant_id, legal_entity_id, counterparty_id, xid)
      VALUES (NEW.tenant_id, NEW.legal_entity_id, NEW.id, pg_current_xact_id())
      ON CONFLICT (tenant_id, legal_entity_id, counterparty_id) DO UPDATE SET xid = excluded.xid WHERE m.xid <> excluded.xid;
      RETURN NULL;
    END $$;
    ALTER FUNCTION counterparties_mark_aging() OWNER TO ${definerRole};
    CREATE TRIGGER counterparties_aging_marks AFTER UPDATE OF name, tin, pinfl ON counterparties FOR EACH ROW
      WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.tin IS DISTINCT FROM NEW.tin OR OLD.pinfl IS DISTINCT FROM NEW.pinfl)
      EXECUTE FUNCTION counterparties_mark_aging();

    GRANT SELECT, INSERT, UPDATE ON aging_snapshots TO ${appRole};
    GRANT SELECT, INSERT, DELETE ON aging_kept_rows TO ${appRole};
    GRANT SELECT, DELETE ON aging_marks TO ${appRole};
    GRANT USAGE ON SEQUENCE aging_builds TO ${appRole};
  `);
  for (const table of ['aging_snapshots', 'aging_kept_rows', 'aging_marks']) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table} USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
      ALTER TABLE ${table} ALTER COLUMN tenant_id SET STATISTICS 1;
      ALTER TABLE ${table} ALTER COLUMN legal_entity_id SET STATISTICS 1;
    `);
  }
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TRIGGER IF EXISTS counterparties_aging_marks ON counterparties;
    DROP FUNCTION IF EXISTS counterparties_mark_aging();
    DROP TRIGGER IF EXISTS journal_lines_aging_marks ON journal_lines;
    DROP FUNCTION IF EXISTS journal_lines_mark_aging();
    DROP TABLE IF EXISTS aging_marks;
    DROP TABLE IF EXISTS aging_kept_rows;
    DROP TABLE IF EXISTS aging_snapshots;
    DROP SEQUENCE IF EXISTS aging_builds;
  `);
}
