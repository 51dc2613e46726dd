import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../runtime/config';
import { dropDatabase } from '../db/setup';

// scripts/start-cluster.sh as a child process, for the cluster test and the cluster benchmark: started in a
// process group of its own, ready when the script says so, stopped with the whole group.

// The repository: this file runs from tools/ (tests) or, compiled, from dist/tools/ (benchmarks).
const ROOT = [path.resolve(__dirname, '..'), path.resolve(__dirname, '..', '..')].find((dir) => existsSync(path.join(dir, 'scripts', 'start-cluster.sh')));

export interface ClusterOptions {
  /** nginx's port; the API processes listen on the next ones, their metrics on port+100+n. */
  port: number;
  /** Where the script keeps process ids and logs. */
  runDir: string;
  /** The cluster's own databases, dropped before it starts and after it stops: ours, and Temporal's (two). */
  databases: { app: string; temporal: string };
  /** The environment of the script (and so of every process), on top of this process's. */
  env: Record<string, string>;
  /** How long to wait for the script to say it is ready. */
  readyTimeoutMs?: number;
}

export interface Cluster {
  /** The process id of a supervised process: api-1, worker-2, …. */
  pidOf(name: string): number;
  /** The last lines of a log in the run folder. */
  logTail(name: string, lines?: number): string;
  stop(): Promise<void>;
}

/** The cluster's databases dropped (with their connections), through the superuser of the default configuration. */
async function dropDatabases({ app, temporal }: ClusterOptions['databases']): Promise<void> {
  const config = loadConfig({ ...process.env, NODE_ENV: 'development' });
  for (const name of [app, temporal, `${temporal}_visibility`]) await dropDatabase(config, name);
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { runDir, databases } = options;
  if (!ROOT) throw new Error('scripts/start-cluster.sh not found above tools/');
  rmSync(runDir, { recursive: true, force: true });
  await dropDatabases(databases);
  let output = '';
  const child = spawn('bash', [path.join(ROOT, 'scripts', 'start-cluster.sh')], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CLUSTER_PORT: String(options.port),
      CLUSTER_RUN_DIR: runDir,
      DATABASE_NAME: databases.app,
      TEMPORAL_DB_NAME: databases.temporal,
      ...options.env,
    },
  });
  child.stdout.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-8000)));
  child.stderr.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-8000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const logTail = (name: string, lines = 40) => {
    const file = path.join(runDir, name);
    return existsSync(file) ? `--- ${name} ---\n${readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')}` : '';
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 30_000)))]);
      clearTimeout(timer);
      if (!stopped) process.kill(-child.pid, 'SIGKILL');
    }
    await dropDatabases(databases);
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 420_000);
  while (!existsSync(path.join(runDir, 'ready'))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(
        `the cluster did not start (exit ${child.exitCode}):\n${output}\n${logTail('temporal.log')}\n${logTail('api-1.log')}\n${logTail('worker-1.log')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    pidOf: (name) => Number(readFileSync(path.join(runDir, `${name}.pid`), 'utf8').trim()),
    logTail,
    stop,
  };
}
