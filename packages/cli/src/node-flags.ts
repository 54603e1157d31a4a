/**
 * Node options the ingest gateway runs with, wherever it is started: `footfall start` is the
 * gateway process, so the `footfall` command's shebang (bin/footfall.mjs), `pnpm start`
 * (package.json), the systemd unit and the ingest image's command (Dockerfile) all repeat them
 * (tests/foundation/images.test.ts checks each), and the ingest benchmark uses them.
 *
 * `--max-semi-space-size=32` (MiB; V8's default here is 16): a busy gateway holds every event's
 * request, answer and record from its arrival until its group commit is on the disk, so each
 * young-generation collection copies a few hundred live requests. A young generation twice as
 * large is collected half as often: in the benchmark, scavenges fell from about 1.2 to 0.7 µs per
 * event and events/s rose by about 4 %, for about 27 MiB more resident memory under load (a bare
 * handler, whose requests die young, gains nothing from it).
 */
export const INGEST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * Node options the query service runs with: `footfall start` gives them to its query child
 * (main.ts), the query image's command repeats them (Dockerfile; tests/foundation/images.test.ts
 * checks it), and the benchmarks start `footfall query` with them.
 *
 * `--max-old-space-size=384` (MiB): V8 sizes its old generation by the machine's memory (about
 * 4 GiB here) and lets garbage collect until the heap is far larger than what is alive. Tailing
 * 1 M demo events, the live heap never passed about 210 MiB after a full collection, yet the heap
 * grew to 570 MiB and the process peaked at 1,009–1,089 MiB resident; capped, the same tail peaked
 * at 727–808 MiB. It costs tail speed: the collector runs more often (70–74 s for the 1 M events
 * against 58–60 s, two runs each). In `pnpm bench:report`, capped against the run before it:
 * 10 M events tailed in 993 s against 822, the process at 717 / 896 MiB after the tail / at peak
 * against 1,155 / 1,239 (docs/operations.md, "Memory"). A small machine runs out of
 * memory sooner than it runs out of tail speed, so memory wins until the load stops making
 * per-event objects (engine README, "Where the time goes"). The cap is nearly twice the live
 * peak, so reports answered during a batch have room; a process that still ran out would be
 * restarted by its supervisor and resume from its last commit.
 */
export const QUERY_NODE_FLAGS: readonly string[] = ['--max-old-space-size=384'];
