import { readFileSync } from 'node:fs';

/**
 * Calls `onGone` once when whatever started this process has gone, however it went:
 * - a child of `footfall start` has an IPC channel to it, which closes when the parent ends, even
 *   by SIGKILL;
 * - `footfall start` itself watches its ancestors (on Linux, each one's pid and start time from
 *   /proc; elsewhere its parent's pid). A package runner stopped with SIGTERM exits alone: with
 *   `npx pnpm start`, npm's runner goes while pnpm and the shells under it, and so our parent, stay.
 *   Once any ancestor is gone, Footfall drains. A process started by init (a container, systemd)
 *   has no ancestor to watch.
 * So `npx pnpm start` stopped with SIGTERM still drains everything it started.
 */
export function watchParent(onGone: () => void): void {
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', onGone);
    return;
  }
  const parent = process.ppid;
  if (parent <= 1) return;
  const ancestors = ancestry();
  const gone =
    ancestors === undefined
      ? () => process.ppid !== parent
      : () => ancestors.some((a) => startTime(a.pid) !== a.start);
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    onGone();
  }, 500);
  timer.unref();
}

interface Ancestor {
  pid: number;
  /** when it started, in clock ticks since boot: tells a reused pid from the process */
  start: string;
}

/** This process's ancestors below init, from /proc; undefined where /proc cannot tell. */
function ancestry(): Ancestor[] | undefined {
  const out: Ancestor[] = [];
  let pid = process.pid;
  for (let depth = 0; depth < 64; depth++) {
    const stat = statOf(pid);
    if (stat === undefined) return depth === 0 ? undefined : out;
    const parent = Number(stat[1]);
    if (parent <= 1) return out;
    const start = startTime(parent);
    if (start === undefined) return out;
    out.push({ pid: parent, start });
    pid = parent;
  }
  return out;
}

/** The fields of /proc/<pid>/stat after the command name: state, ppid, ... */
function statOf(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name is in parentheses and may hold spaces and parentheses itself
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (the 20th after the name), or undefined when the process is gone. */
const startTime = (pid: number): string | undefined => statOf(pid)?.[19];
