import type { Sequelize } from 'sequelize';
import { createSequelize } from './connection';
import { initModels } from './models';

/**
 * The application role's connection pool with every model bound to it: what the API and the worker run on.
 * Models are bound once per process; nothing above db/ touches them (repositories do).
 */
export function openDatabase(url: string, options: { poolMax?: number } = {}): Sequelize {
  const db = createSequelize(url, options);
  initModels(db);
  return db;
}
