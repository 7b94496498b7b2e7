/**
 * CPU time of the processes a pipeline run uses, by role: the receiver and worker processes (by
 * pid), the Postgres backends serving the bench database (pg_stat_activity, sampled every
 * second so a backend that closes loses at most its last second), Redis (its own INFO cpu) and
 * this process, the load generator ("client").
 * Linux only (/proc); elsewhere every figure is NaN. On a CPU-bound machine these say where the
 * cycles go, which wall-clock splits cannot when processes wait for one another's cores.
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import type pg from "pg";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process, ms; NaN when it cannot be read. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** used_cpu_user + used_cpu_sys of the Redis server at `url`, ms. */
function redisCpuMs(url: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    let text = "";
    const done = (v: number) => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(2000, () => done(NaN));
    socket.on("error", () => done(NaN));
    socket.on("connect", () => socket.write("INFO cpu\r\n"));
    socket.on("data", (chunk) => {
      text += chunk.toString("utf8");
      const user = /used_cpu_user:([\d.]+)/.exec(text);
      const sys = /used_cpu_sys:([\d.]+)/.exec(text);
      if (user && sys) done((Number(user[1]) + Number(sys[1])) * 1000);
    });
  });
}

export type Role = "client" | "receiver" | "worker" | "postgres" | "redis";
export type CpuSplit = Record<Role, number>;

export function createCpuMeter(opts: { pool: pg.Pool; redisUrl: string; pids: () => { receiver: number[]; worker: number[] } }) {
  // Postgres backends: the highest CPU seen per pid, so a closed one keeps what it had used.
  const backendMs = new Map<number, number>();
  async function sampleBackends(): Promise<void> {
    const { rows } = await opts.pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (Number.isFinite(ms)) backendMs.set(pid, Math.max(backendMs.get(pid) ?? 0, ms));
    }
  }
  const timer = setInterval(() => void sampleBackends().catch(() => {}), 1000);
  timer.unref();

  /** Cumulative CPU per role now (ms). */
  async function read(): Promise<CpuSplit> {
    await sampleBackends();
    const sum = (pids: number[]) => pids.reduce((a, p) => a + processCpuMs(p), 0);
    const { receiver, worker } = opts.pids();
    const self = process.cpuUsage();
    return {
      client: (self.user + self.system) / 1000,
      receiver: sum(receiver),
      worker: sum(worker),
      postgres: [...backendMs.values()].reduce((a, b) => a + b, 0),
      redis: await redisCpuMs(opts.redisUrl),
    };
  }

  return {
    read,
    /** CPU used per role between two reads. */
    since: (a: CpuSplit, b: CpuSplit): CpuSplit => ({
      client: b.client - a.client,
      receiver: b.receiver - a.receiver,
      worker: b.worker - a.worker,
      postgres: b.postgres - a.postgres,
      redis: b.redis - a.redis,
    }),
    stop: () => clearInterval(timer),
  };
}
