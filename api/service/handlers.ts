import type { Sequelize } from 'sequelize';
import type { OpenApiDocument } from '../../contracts/operations';
import { pingDatabase } from '../../db/repositories/service/readiness';
import { publicOperation, type HandlersOf } from '../http/operation-handler';
import type { WorkflowClient } from '../workflow-client';

export type ServiceOperation = 'getHealth' | 'getReadiness' | 'getApiIndex' | 'getOpenApiDocument';

/** The process itself: liveness, readiness of its dependencies, and the document it serves. */
export function serviceHandlers(deps: { db: Sequelize; workflows: Pick<WorkflowClient, 'reachable'>; doc: OpenApiDocument }): HandlersOf<ServiceOperation> {
  return {
    getHealth: publicOperation(() => ({ status: 200, body: { status: 'UP' } })),

    getReadiness: publicOperation(async () => {
      const within = <T>(p: Promise<T>) =>
        Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
      const [postgres, temporal] = await Promise.all([
        within(pingDatabase(deps.db)).then(() => 'UP' as const, () => 'DOWN' as const),
        deps.workflows.reachable(2000).then((up) => (up ? ('UP' as const) : ('DOWN' as const))),
      ]);
      const ready = postgres === 'UP' && temporal === 'UP';
      return ready
        ? { status: 200, body: { status: 'READY', checks: { postgres, temporal } } }
        : { status: 503, body: { status: 'NOT_READY', checks: { postgres, temporal } } };
    }),

    getApiIndex: publicOperation(() => {
      const info = deps.doc.info as { title: string; version: string };
      return { status: 200, body: { name: info.title, version: info.version, documentation: '/docs', openapi: '/api/v1/openapi.json' } };
    }),
    getOpenApiDocument: publicOperation(() => ({ status: 200, body: deps.doc as never })),
  };
}
