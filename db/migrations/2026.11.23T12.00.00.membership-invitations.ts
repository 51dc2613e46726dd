import type { MigrationContext } from './context';

// Invitations into a workspace: the token is stored only as a hash,
// valid seven days; one pending invitation per email and workspace (a new one supersedes it). Accepting
// is the workflow invitation-<invitationId>: the request leaves the password hash of a new identity in
// an acceptance row, which the workflow's activity consumes and scrubs, like registration.

const TABLES = ['membership_invitations', 'invitation_acceptances'];

export async function up({ sql, appRole }: MigrationContext): Promise<void> {
  await sql(`
    CREATE TABLE membership_invitations (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
      roles text[] NOT NULL CHECK (cardinality(roles) BETWEEN 1 AND 5
                                   AND roles <@ ARRAY['ADMIN', 'ACCOUNTANT', 'MANAGER', 'EMPLOYEE', 'VIEWER']),
      delivery text NOT NULL CHECK (delivery IN ('EMAIL', 'MANUAL')),
      token_hash bytea NOT NULL UNIQUE,
      invited_by_membership_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      mailed_at timestamptz,
      revoked_at timestamptz,
      superseded_at timestamptz,
      consumed_at timestamptz,
      consumed_by_acceptance uuid,
      accepted_membership_id uuid,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE UNIQUE INDEX membership_invitations_one_pending ON membership_invitations (tenant_id, email)
      WHERE consumed_at IS NULL AND revoked_at IS NULL AND superseded_at IS NULL;

    CREATE TABLE invitation_acceptances (
      tenant_id uuid NOT NULL REFERENCES tenants(id),
      id uuid NOT NULL,
      invitation_id uuid NOT NULL,
      existing_identity_id uuid,
      password_hash text,
      correlation_id uuid NOT NULL,
      ip_address text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, invitation_id) REFERENCES membership_invitations(tenant_id, id)
    );
    REVOKE DELETE, TRUNCATE ON membership_invitations, invitation_acceptances FROM ${appRole};
  `);
  for (const table of TABLES) {
    await sql(`
      ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
      ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
      CREATE POLICY tenant_isolation ON ${table}
        USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
    `);
  }
}

export async function down({ sql }: MigrationContext): Promise<void> {
  await sql(`DROP TABLE IF EXISTS invitation_acceptances, membership_invitations;`);
}
