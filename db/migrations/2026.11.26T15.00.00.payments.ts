import type { MigrationContext } from './context';

// Payments (money in from customers, out to suppliers) and their allocations to invoices. A payment posts one
// entry in its own commit: the money account against the settlement account for the part allocated and the
// advance account for the rest. A later allocation of an advance posts its reclassification entry; a
// cancellation posts one entry reversing what the payment's entries left, and releases its allocations.
//
// The subledger ties to itself in the database: a deferred constraint trigger holds every invoice's and
// every payment's `allocated` equal to the sum of its allocations not released, at commit; `allocated` never
// exceeds the invoice's gross or the payment's amount (CHECKs). Together with the invoice row held FOR
// UPDATE by every allocation, ten concurrent allocations to one invoice can never over-allocate it.
// Payments and allocations are never deleted; a posted payment's content is frozen, as an invoice's.

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE payments (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      direction text NOT NULL CHECK (direction IN ('IN', 'OUT')),
      status text NOT NULL CHECK (status IN ('POSTED', 'CANCELLED')),
      payment_date date NOT NULL,
      counterparty_id uuid NOT NULL,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      amount numeric(20, 3) NOT NULL CHECK (amount > 0),
      allocated numeric(20, 3) NOT NULL DEFAULT 0,
      money_account text NOT NULL CHECK (money_account ~ '^5[0-2][0-9]{2}$'),
      description text CHECK (length(description) BETWEEN 1 AND 500),
      rate numeric(20, 10) CHECK (rate > 0),
      rate_date date,
      amount_uzs numeric(20, 2) NOT NULL CHECK (amount_uzs > 0),
      request_id uuid NOT NULL,
      request_hash text NOT NULL,
      entry_id uuid NOT NULL,
      posted_by_membership_id uuid,
      cancellation_entry_id uuid,
      cancellation_date date,
      cancellation_reason text CHECK (length(cancellation_reason) BETWEEN 1 AND 500),
      cancellation_request_id uuid,
      version bigint NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, legal_entity_id, id),
      UNIQUE (tenant_id, legal_entity_id, request_id),
      FOREIGN KEY (tenant_id, legal_entity_id) REFERENCES legal_entities(tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id, counterparty_id) REFERENCES counterparties(tenant_id, legal_entity_id, id),
      FOREIGN KEY (tenant_id, entry_id) REFERENCES journal_entries(tenant_id, id),
      FOREIGN KEY (tenant_id, cancellation_entry_id) REFERENCES journal_entries(tenant_id, id),
      CONSTRAINT payments_allocated_within_amount CHECK (allocated >= 0 AND allocated <= amount),
      CONSTRAINT payments_uzs_currency CHECK ((currency = 'UZS') = (rate IS NULL) AND (rate IS NULL) = (rate_date IS NULL)),
      CONSTRAINT payments_cancellation_complete CHECK (
        (status = 'CANCELLED') = (cancellation_entry_id IS NOT NULL)
        AND num_nulls(cancellation_entry_id, cancellation_date, cancellation_reason, cancellation_request_id) IN (0, 4)
        AND (cancellation_date IS NULL OR cancellation_date >= payment_date)
        AND (status <> 'CANCELLED' OR allocated = 0))
    );
    CREATE INDEX payments_list_idx ON payments (tenant_id, legal_entity_id, payment_date DESC, id);
    CREATE INDEX payments_counterparty_idx ON payments (tenant_id, legal_entity_id, counterparty_id, payment_date);

    CREATE TABLE payment_allocations (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      legal_entity_id uuid NOT NULL,
      payment_id uuid NOT NULL,
      invoice_id uuid NOT NULL,
      amount numeric(20, 3) NOT NULL CHECK (amount > 0),
      amount_uzs numeric(20, 2) NOT NULL CHECK (amount_uzs >= 0),
      allocation_date date NOT NULL,
      entry_id uuid NOT NULL,
      released_date date,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id, payment_id) REFERENCES payments(tenant_id, legal_entity_id, id),
      FOREIGN KEY (tenant_id, legal_entity_id, invoice_id) REFERENCES invoices(tenant_id, legal_entity_id, id),
      FOREIGN KEY (tenant_id, entry_id) REFERENCES journal_entries(tenant_id, id),
      CONSTRAINT payment_allocations_released_after CHECK (released_date IS NULL OR released_date >= allocation_date)
    );
    CREATE INDEX payment_allocations_payment_idx ON payment_allocations (tenant_id, payment_id);
    CREATE INDEX payment_allocations_invoice_idx ON payment_allocations (tenant_id, invoice_id);

    -- A posted payment is frozen but for its allocated sum, its cancellation and its version.
    CREATE FUNCTION payments_frozen() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'payment %: a payment is never deleted; cancel it', OLD.id USING ERRCODE = 'P0C20';
      END IF;
      IF OLD.status = 'CANCELLED' AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'payment % is cancelled: it is frozen', OLD.id USING ERRCODE = 'P0C20';
      END IF;
      IF (NEW.direction, NEW.payment_date, NEW.counterparty_id, NEW.currency, NEW.amount, NEW.money_account, NEW.description, NEW.rate,
          NEW.rate_date, NEW.amount_uzs, NEW.request_id, NEW.request_hash, NEW.entry_id, NEW.posted_by_membership_id, NEW.legal_entity_id, NEW.created_at)
         IS DISTINCT FROM
         (OLD.direction, OLD.payment_date, OLD.counterparty_id, OLD.currency, OLD.amount, OLD.money_account, OLD.description, OLD.rate,
          OLD.rate_date, OLD.amount_uzs, OLD.request_id, OLD.request_hash, OLD.entry_id, OLD.posted_by_membership_id, OLD.legal_entity_id, OLD.created_at) THEN
        RAISE EXCEPTION 'payment %: its content is frozen', OLD.id USING ERRCODE = 'P0C20';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER payments_frozen BEFORE UPDATE OR DELETE ON payments FOR EACH ROW EXECUTE FUNCTION payments_frozen();

    -- An allocation is written once; the one change it takes is its release (the payment's cancellation).
    CREATE FUNCTION payment_allocations_append_only() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'allocation %: allocations are never deleted; cancel the payment', OLD.id USING ERRCODE = 'P0C20';
      END IF;
      IF OLD.released_date IS NOT NULL OR NEW.released_date IS NULL
         OR (NEW.payment_id, NEW.invoice_id, NEW.amount, NEW.amount_uzs, NEW.allocation_date, NEW.entry_id, NEW.legal_entity_id)
            IS DISTINCT FROM (OLD.payment_id, OLD.invoice_id, OLD.amount, OLD.amount_uzs, OLD.allocation_date, OLD.entry_id, OLD.legal_entity_id) THEN
        RAISE EXCEPTION 'allocation %: only its release is recorded after it is written', OLD.id USING ERRCODE = 'P0C20';
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER payment_allocations_append_only BEFORE UPDATE OR DELETE ON payment_allocations
      FOR EACH ROW EXECUTE FUNCTION payment_allocations_append_only();

    -- At commit: an invoice's and a payment's allocated sums are their allocations not released.
    CREATE FUNCTION allocated_is_sum_of_allocations() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
    DECLARE
      stored numeric;
      summed numeric;
    BEGIN
      IF TG_TABLE_NAME = 'invoices' THEN
        SELECT allocated INTO stored FROM invoices WHERE tenant_id = NEW.tenant_id AND id = NEW.id;
        SELECT coalesce(sum(amount), 0) INTO summed FROM payment_allocations
         WHERE tenant_id = NEW.tenant_id AND invoice_id = NEW.id AND released_date IS NULL;
      ELSIF TG_TABLE_NAME = 'payments' THEN
        SELECT allocated INTO stored FROM payments WHERE tenant_id = NEW.tenant_id AND id = NEW.id;
        SELECT coalesce(sum(amount), 0) INTO summed FROM payment_allocations
         WHERE tenant_id = NEW.tenant_id AND payment_id = NEW.id AND released_date IS NULL;
      ELSE
        -- An allocation written or released: both its invoice and its payment are checked.
        PERFORM 1 FROM invoices i WHERE i.tenant_id = NEW.tenant_id AND i.id = NEW.invoice_id
           AND i.allocated <> (SELECT coalesce(sum(amount), 0) FROM payment_allocations a WHERE a.tenant_id = i.tenant_id AND a.invoice_id = i.id AND a.released_date IS NULL);
        IF FOUND THEN RAISE EXCEPTION 'invoice %: allocated is not the sum of its allocations', NEW.invoice_id USING ERRCODE = '23514'; END IF;
        PERFORM 1 FROM payments p WHERE p.tenant_id = NEW.tenant_id AND p.id = NEW.payment_id
           AND p.allocated <> (SELECT coalesce(sum(amount), 0) FROM payment_allocations a WHERE a.tenant_id = p.tenant_id AND a.payment_id = p.id AND a.released_date IS NULL);
        IF FOUND THEN RAISE EXCEPTION 'payment %: allocated is not the sum of its allocations', NEW.payment_id USING ERRCODE = '23514'; END IF;
        RETURN NULL;
      END IF;
      IF stored IS NOT NULL AND stored <> summed THEN
        RAISE EXCEPTION '% %: allocated % is not the sum % of its allocations', TG_TABLE_NAME, NEW.id, stored, summed USING ERRCODE = '23514';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER invoices_allocated_is_sum AFTER UPDATE OF allocated ON invoices
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION allocated_is_sum_of_allocations();
    CREATE CONSTRAINT TRIGGER payments_allocated_is_sum AFTER INSERT OR UPDATE OF allocated ON payments
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION allocated_is_sum_of_allocations();
    CREATE CONSTRAINT TRIGGER payment_allocations_sum AFTER INSERT OR UPDATE ON payment_allocations
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION allocated_is_sum_of_allocations();

    GRANT SELECT, INSERT, UPDATE ON payments, payment_allocations TO ${appRole};
    REVOKE DELETE, TRUNCATE ON payments, payment_allocations FROM ${appRole};

    ALTER TABLE payments ENABLE ROW LEVEL SECURITY;
    ALTER TABLE payments FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON payments USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    ALTER TABLE payment_allocations ENABLE ROW LEVEL SECURITY;
    ALTER TABLE payment_allocations FORCE ROW LEVEL SECURITY;
    CREATE POLICY tenant_isolation ON payment_allocations USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  `);
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`
    DROP TRIGGER IF EXISTS invoices_allocated_is_sum ON invoices;
    DROP TABLE IF EXISTS payment_allocations;
    DROP TABLE IF EXISTS payments;
    DROP FUNCTION IF EXISTS allocated_is_sum_of_allocations();
    DROP FUNCTION IF EXISTS payment_allocations_append_only();
    DROP FUNCTION IF EXISTS payments_frozen();
  `);
}
