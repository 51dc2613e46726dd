import { randomUUID } from 'node:crypto';
import { LegalEntity, Membership, MembershipRole, Role, RolePermission, Tenant, User } from '../../models';
import { selectRows, setTenant, type Db, type Tx } from '../../connection';
import { slugBase, slugCandidate } from '../../../core/organisation/slug';
import { ROLE_NAMES, type RoleCode } from '../../../core/organisation/roles';

// Workspaces (tenant, company, first membership and default roles) and their host names. Serves
// registerWorkflow's activity (createWorkspace), login and acceptInvitation (a workspace by its host), and
// mailInvitationWorkflow's activity (the workspace's host in the mail).

export interface NewWorkspace {
  identityId: string;
  email: string;
  companyName: string | null;
  companyTaxId: string | null;
}

export interface CreatedWorkspace {
  tenantId: string;
  legalEntityId: string;
  userId: string;
  membershipId: string;
  slug: string;
}

/** The workspace answering at `slug` (security definer: the tenant is what is being looked up). */
export async function tenantIdBySlug(db: Db, slug: string): Promise<string | null> {
  const [row] = await selectRows<{ id: string | null }>(db, 'SELECT app_tenant_by_slug(:slug) AS id', { slug });
  return row?.id ?? null;
}

async function freeSlug(tx: Tx, base: string): Promise<string> {
  // A race for the same slug ends in a unique violation; the activity's retry then picks the next one.
  for (let attempt = 1; ; attempt++) {
    const candidate = slugCandidate(base, attempt);
    if (!(await tenantIdBySlug(tx, candidate))) return candidate;
  }
}

/**
 * Creates tenant, company, user, ADMIN membership and the five default roles with their permissions,
 * inside the caller's transaction, and leaves the transaction scoped to the new tenant.
 */
export async function createWorkspace(
  tx: Tx,
  input: NewWorkspace,
  defaultPermissions: Map<string, RoleCode[]>,
): Promise<CreatedWorkspace> {
  const tenantId = randomUUID();
  const slug = await freeSlug(tx, slugBase(input.companyName, input.email));
  await setTenant(tx, tenantId);
  await Tenant.create({ id: tenantId, slug }, { transaction: tx });
  const legalEntityId = randomUUID();
  await LegalEntity.create(
    {
      tenantId,
      id: legalEntityId,
      name: input.companyName,
      taxId: input.companyTaxId,
      onboardingComplete: input.companyName !== null,
    },
    { transaction: tx },
  );
  const userId = randomUUID();
  await User.create(
    { tenantId, id: userId, identityId: input.identityId, displayName: input.email.split('@')[0], contactEmail: input.email },
    { transaction: tx },
  );
  const membershipId = randomUUID();
  await Membership.create({ tenantId, id: membershipId, userId, status: 'ACTIVE' }, { transaction: tx });

  const roleIds = new Map<RoleCode, string>();
  const roles = (Object.keys(ROLE_NAMES) as RoleCode[]).map((code) => {
    const id = randomUUID();
    roleIds.set(code, id);
    return { tenantId, id, code, name: ROLE_NAMES[code] };
  });
  await Role.bulkCreate(roles, { transaction: tx });
  const grants: Array<{ tenantId: string; roleId: string; permission: string }> = [];
  for (const [permission, holders] of defaultPermissions) {
    for (const code of holders) grants.push({ tenantId, roleId: roleIds.get(code)!, permission });
  }
  await RolePermission.bulkCreate(grants, { transaction: tx });
  await MembershipRole.create({ tenantId, membershipId, roleId: roleIds.get('ADMIN')! }, { transaction: tx });
  return { tenantId, legalEntityId, userId, membershipId, slug };
}

/** The workspace's slug (its host is <slug>.<base domain>). */
export async function tenantSlug(tx: Db, scope: { tenantId: string }): Promise<string> {
  const [row] = await selectRows<{ slug: string }>(tx, `SELECT slug FROM tenants WHERE id = :tenantId`, scope);
  return row!.slug;
}
