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
