import type { OpenApiDocument, OperationIndex, OperationInfo } from '../../contracts/operations';

/** The query parameters of the document's GET operations whose schema `keep` accepts: [operation id, name, operation]. */
export function getQueryParameters(
  doc: OpenApiDocument,
  index: OperationIndex,
  keep: (schema: Record<string, any>) => boolean,
): Array<readonly [string, string, OperationInfo]> {
  return index.operations
    .filter((op) => op.method === 'GET')
    .flatMap((op) => {
      const parameters: Array<Record<string, any>> = doc.paths[op.path]!.get.parameters ?? [];
      return parameters.filter((p) => p.in === 'query' && p.schema !== undefined && keep(p.schema)).map((p) => [op.operationId, p.name as string, op] as const);
    });
}
