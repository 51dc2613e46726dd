import { randomUUID } from 'node:crypto';
import { createPasswordHasher } from '../../core/identity/passwords';
import type { TestStack } from './stack';
import { api, PASSWORD, uniqueEmail } from './clients';

const hasher = createPasswordHasher({ memoryKib: 4096, timeCost: 1 });

export interface Member {
  email: string;
  membershipId: string;
  accessToken: string;
  refreshToken: string;
}

/**
 * Arranges (as a superuser, around row-level security) a new identity whose only membership is in `tenantId`
 * with `roles`, then logs it in through the API, so its token carries the workspace's real role permissions.
 */
export async function addMember(
  stack: TestStack,
  tenantId: string,
  roles: string[],
  options: { displayName?: string } = {},
): Promise<Member> {
  const email = uniqueEmail(roles.join('-').toLowerCase() || 'norole');
  const identityId = randomUUID();
  const userId = randomUUID();
  const membershipId = randomUUID();
  const replacements = {
    identityId,
    userId,
    membershipId,
    tenantId,
    email,
    hash: await hasher.hash(PASSWORD),
    displayName: options.displayName ?? email.split('@')[0],
    roles,
  };
  await stack.admin.transaction(async (transaction) => {
    const q = (sql: string) => stack.admin.query(sql, { replacements, transaction });
    await q('INSERT INTO identities (id, email, password_hash) VALUES (:identityId, :email, :hash)');
    await q(`INSERT INTO users (tenant_id, id, identity_id, display_name, contact_email) VALUES (:tenantId, :userId, :identityId, :displayName, :email)`);
    await q(`INSERT INTO memberships (tenant_id, id, user_id, status) VALUES (:tenantId, :membershipId, :userId, 'ACTIVE')`);
    if (roles.length > 0) {
      await q(`INSERT INTO membership_roles (tenant_id, membership_id, role_id)
               SELECT tenant_id, :membershipId, id FROM roles WHERE tenant_id = :tenantId AND code IN (:roles)`);
    }
  });
  const res = await api(stack).post('/api/v1/auth/login').send({ email, password: PASSWORD });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { email, membershipId, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken };
}

/** Marks the company archived, as POST /company/archive will. */
export async function archiveCompany(stack: TestStack, legalEntityId: string): Promise<void> {
  await stack.admin.query('UPDATE legal_entities SET archived_at = now() WHERE id = :legalEntityId', { replacements: { legalEntityId } });
}

/**
 * Gives `roleCode` in the workspace extra permissions, as an edited set (PUT /roles/{id}/permissions would
 * leave it so: no longer the defaults). Members log in after this to carry them.
 */
export async function grantPermissions(stack: TestStack, tenantId: string, roleCode: string, permissions: string[]): Promise<void> {
  await stack.admin.query(
    `INSERT INTO role_permissions (tenant_id, role_id, permission) SELECT tenant_id, id, unnest(ARRAY[:permissions]::text[]) FROM roles WHERE tenant_id = :tenantId AND code = :roleCode
       ON CONFLICT DO NOTHING;
     UPDATE roles SET default_permissions = false WHERE tenant_id = :tenantId AND code = :roleCode`,
    { replacements: { tenantId, roleCode, permissions } },
  );
}
