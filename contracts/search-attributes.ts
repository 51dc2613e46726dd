import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** The tenant a workflow acts for, so operators can filter the Temporal UI by workspace. */
export const TENANT_ID = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
