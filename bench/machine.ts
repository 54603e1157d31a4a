import { cpus, totalmem } from 'node:os';

/** One line naming the machine a benchmark ran on. */
export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** Resident memory of a process in bytes, from /proc (Linux), or null. */
export async function rssOf(pid: number): Promise<number | null> {
  try {
    const { readFile } = await import('node:fs/promises');
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
