import fs from 'node:fs';

// What a bench step stood on: the platform scenario's figures assume the database in the
// operating system's file cache and the CPUs the machine's own (docs/decisions/performance.md,
// "Traps"), so each step records how far that held.

export interface MachineState {
  databaseGb: number;
  /** the operating system's file cache (Cached in /proc/meminfo), least and most while measured */
  cacheGb: [number, number];
  /** CPU time taken by the hypervisor and spent waiting for I/O, of all CPU time while measured */
  stealPct: number;
  iowaitPct: number;
  /** the kernel's proactive reclaim (DAMON) when it pages out memory left idle: after how many seconds */
  reclaimIdleSeconds: number | null;
}

/**
 * Whether a running DAMON context pages out memory not accessed for a while (`pageout` scheme),
 * and after how long: such a machine drops the database's file pages a minute or so after they
 * were last read, whatever memory is free, and "cold" then reads the disk.
 */
function damonReclaim(): number | null {
  const root = '/sys/kernel/mm/damon/admin/kdamonds';
  const read = (f: string) => fs.readFileSync(f, 'utf8').trim();
  let least: number | null = null;
  try {
    for (const k of fs.readdirSync(root).filter((d) => /^\d+$/.test(d))) {
      if (read(`${root}/${k}/state`) !== 'on') continue;
      for (const c of fs.readdirSync(`${root}/${k}/contexts`).filter((d) => /^\d+$/.test(d))) {
        const ctx = `${root}/${k}/contexts/${c}`;
        const aggrUs = Number(read(`${ctx}/monitoring_attrs/intervals/aggr_us`));
        for (const sc of fs.readdirSync(`${ctx}/schemes`).filter((d) => /^\d+$/.test(d))) {
          if (read(`${ctx}/schemes/${sc}/action`) !== 'pageout') continue;
          const seconds = (Number(read(`${ctx}/schemes/${sc}/access_pattern/age/min`)) * aggrUs) / 1e6;
          least = least === null ? seconds : Math.min(least, seconds);
        }
      }
    }
  } catch {
    // no DAMON, or not readable here
  }
  return least;
}

/** The file cache sampled every second, and the CPU's steal and I/O wait, from now until stop(). */
export function machineSampler(databaseBytes: number): { stop: () => MachineState } {
  const cached = () => Number(/^Cached:\s+(\d+)/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024 / 1024;
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const cpu = () => fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1, 9).map(Number);
  const start = cpu();
  let least = cached();
  let most = least;
  const timer = setInterval(() => {
    const c = cached();
    least = Math.min(least, c);
    most = Math.max(most, c);
  }, 1_000);
  return {
    stop: () => {
      clearInterval(timer);
      const d = cpu().map((v, i) => v - start[i]!);
      const total = d.reduce((a, b) => a + b, 0) || 1;
      return {
        databaseGb: databaseBytes / 1024 ** 3,
        cacheGb: [least, most],
        stealPct: (100 * d[7]!) / total,
        iowaitPct: (100 * d[4]!) / total,
        reclaimIdleSeconds: damonReclaim(),
      };
    },
  };
}
