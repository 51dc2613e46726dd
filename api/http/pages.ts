// The page envelope every paged list answers with.

/** Which rows of a register with archiving a list shows: the active ones (`false`, the default), the archived ones, or all. */
export type ArchivedFilter = 'false' | 'true' | 'all';

export interface PageQuery {
  page: number;
  size: number;
}

export function pageOf<T>(items: T[], query: PageQuery, total: number) {
  return { items, page: query.page, size: query.size, totalElements: total, totalPages: Math.ceil(total / query.size) };
}

/** page and size after validation; absent values take the documented defaults. */
export function pageQuery(query: { page?: number; size?: number }): PageQuery {
  return { page: query.page ?? 0, size: query.size ?? 50 };
}
